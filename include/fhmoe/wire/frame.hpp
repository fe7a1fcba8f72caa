#pragma once

// A frame: one checksummed message of some protocol.
//
//   offset  size  field
//        0     4  magic "FHMW" (0x574D4846 little-endian)
//        4     2  protocol version (the protocol's own number; a mismatch is an error)
//        6     2  message type (the protocol's own enum)
//        8     4  payload length (at most max_frame_payload)
//       12     4  CRC-32 of the payload
//       16     n  payload
//
// Every way a frame can be wrong is a FrameError with a kind, so a receiver can say exactly
// why it gave up on its peer.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fhmoe/wire/bytes.hpp"

namespace fhmoe::wire {

inline constexpr std::uint32_t frame_magic = 0x574D4846U;  // "FHMW"
inline constexpr std::size_t frame_header_bytes = 16;
// Large enough for any result or race reply and for the journal's run header, which plans
// every candidate of the night (8.6 MB for the DSV4 night, 86 MB for one ten times larger:
// 64 MiB refused it, issue #12); small enough that a corrupt length field is caught instead
// of being waited for.
inline constexpr std::uint32_t max_frame_payload = 256U << 20;

enum class FrameErrorKind : std::uint8_t {
    truncated,
    bad_magic,
    bad_version,
    bad_checksum,
    too_large
};

class FrameError : public WireError {
public:
    FrameError(FrameErrorKind kind, const std::string& message) : WireError(message), kind_(kind) {}
    FrameErrorKind kind() const noexcept { return kind_; }

private:
    FrameErrorKind kind_;
};

struct Frame {
    std::uint16_t version = 0;
    std::uint16_t type = 0;
    std::vector<std::uint8_t> payload;
};

std::vector<std::uint8_t> encode_frame(std::uint16_t version, std::uint16_t type,
                                       std::span<const std::uint8_t> payload);

// Decodes exactly one frame that fills `bytes`; throws FrameError on any defect, including
// missing or trailing bytes.
Frame decode_frame(std::span<const std::uint8_t> bytes, std::uint16_t expected_version);
// The same for any version in [oldest_version, newest_version] (Frame::version says which).
Frame decode_frame(std::span<const std::uint8_t> bytes, std::uint16_t oldest_version,
                   std::uint16_t newest_version);

// Incremental decoding for a byte stream that arrives in pieces (a non-blocking pipe).
class FrameDecoder {
public:
    explicit FrameDecoder(std::uint16_t expected_version) : version_(expected_version) {}

    void feed(std::span<const std::uint8_t> bytes);
    // The next complete frame, if one has arrived. Throws FrameError as soon as a header or
    // payload is seen to be bad.
    std::optional<Frame> next();
    // Bytes of an incomplete frame are buffered: at end of stream that is a truncated frame.
    bool mid_frame() const { return !buffer_.empty(); }
    std::size_t buffered() const { return buffer_.size(); }

private:
    std::uint16_t version_;
    std::vector<std::uint8_t> buffer_;
};

}  // namespace fhmoe::wire
