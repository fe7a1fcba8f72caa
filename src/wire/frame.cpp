#include "fhmoe/wire/frame.hpp"

#include <cstdio>

#include "fhmoe/wire/crc32.hpp"

namespace fhmoe::wire {
namespace {

struct Header {
    std::uint32_t magic;
    std::uint16_t version;
    std::uint16_t type;
    std::uint32_t length;
    std::uint32_t crc;
};

// Versions [oldest, newest] are accepted (one version for a pipe between two processes of one
// build; a range for a file an older build may have written).
Header parse_header(std::span<const std::uint8_t> bytes, std::uint16_t oldest,
                    std::uint16_t newest) {
    ByteReader reader(bytes.first(frame_header_bytes));
    Header header{reader.u32(), reader.u16(), reader.u16(), reader.u32(), reader.u32()};
    if (header.magic != frame_magic) {
        throw FrameError(
            FrameErrorKind::bad_magic, "bad frame magic 0x" + [&] {
                char text[16];
                std::snprintf(text, sizeof text, "%08x", header.magic);
                return std::string(text);
            }() + " (not an fhmoe frame, or the stream lost its place)");
    }
    if (header.version < oldest || header.version > newest) {
        const std::string expected = oldest == newest
                                         ? std::to_string(newest)
                                         : std::to_string(oldest) + " to " + std::to_string(newest);
        throw FrameError(FrameErrorKind::bad_version,
                         "frame protocol version " + std::to_string(header.version) +
                             ", expected " + expected + " (the peer is a different build)");
    }
    if (header.length > max_frame_payload) {
        throw FrameError(FrameErrorKind::too_large,
                         "frame payload length " + std::to_string(header.length) +
                             " exceeds the limit of " + std::to_string(max_frame_payload));
    }
    return header;
}

Frame check_payload(const Header& header, std::span<const std::uint8_t> payload) {
    const std::uint32_t actual = crc32(payload);
    if (actual != header.crc) {
        throw FrameError(FrameErrorKind::bad_checksum,
                         "frame checksum mismatch on message type " + std::to_string(header.type) +
                             " (" + std::to_string(payload.size()) + " payload bytes)");
    }
    return Frame{header.version, header.type, {payload.begin(), payload.end()}};
}

}  // namespace

std::vector<std::uint8_t> encode_frame(std::uint16_t version, std::uint16_t type,
                                       std::span<const std::uint8_t> payload) {
    if (payload.size() > max_frame_payload) {
        throw FrameError(
            FrameErrorKind::too_large,
            "frame payload of " + std::to_string(payload.size()) + " bytes exceeds the limit");
    }
    ByteWriter writer;
    writer.u32(frame_magic);
    writer.u16(version);
    writer.u16(type);
    writer.u32(static_cast<std::uint32_t>(payload.size()));
    writer.u32(crc32(payload));
    writer.raw(payload);
    return std::move(writer).take();
}

Frame decode_frame(std::span<const std::uint8_t> bytes, std::uint16_t expected_version) {
    return decode_frame(bytes, expected_version, expected_version);
}

Frame decode_frame(std::span<const std::uint8_t> bytes, std::uint16_t oldest_version,
                   std::uint16_t newest_version) {
    if (bytes.size() < frame_header_bytes) {
        throw FrameError(FrameErrorKind::truncated,
                         "truncated frame: " + std::to_string(bytes.size()) +
                             " bytes, a header needs " + std::to_string(frame_header_bytes));
    }
    const Header header = parse_header(bytes, oldest_version, newest_version);
    const std::size_t total = frame_header_bytes + header.length;
    if (bytes.size() < total) {
        throw FrameError(FrameErrorKind::truncated,
                         "truncated frame: " + std::to_string(bytes.size()) + " of " +
                             std::to_string(total) + " bytes");
    }
    if (bytes.size() > total) {
        throw FrameError(FrameErrorKind::truncated,
                         std::to_string(bytes.size() - total) + " trailing bytes after the frame");
    }
    return check_payload(header, bytes.subspan(frame_header_bytes, header.length));
}

void FrameDecoder::feed(std::span<const std::uint8_t> bytes) {
    buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

std::optional<Frame> FrameDecoder::next() {
    if (buffer_.size() < frame_header_bytes) return std::nullopt;
    const Header header = parse_header(buffer_, version_, version_);
    const std::size_t total = frame_header_bytes + header.length;
    if (buffer_.size() < total) return std::nullopt;
    Frame frame = check_payload(
        header, std::span<const std::uint8_t>(buffer_).subspan(frame_header_bytes, header.length));
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(total));
    return frame;
}

}  // namespace fhmoe::wire
