#pragma once

// Blocking frame I/O over a file descriptor (pipe or socket): retries EINTR and partial
// transfers, and never raises SIGPIPE (a socket write uses MSG_NOSIGNAL; a vanished peer is
// a WireError, not a dead process).

#include <cstdint>
#include <optional>
#include <span>

#include "fhmoe/wire/frame.hpp"

namespace fhmoe::wire {

// Writes every byte or throws WireError (with errno's text).
void write_all(int fd, std::span<const std::uint8_t> bytes);

// Fills `bytes` completely. Returns false on end of stream before the first byte; end of
// stream after it is a truncated-frame FrameError.
bool read_exact(int fd, std::span<std::uint8_t> bytes);

void write_frame(int fd, std::uint16_t version, std::uint16_t type,
                 std::span<const std::uint8_t> payload);

// The next frame, or nullopt on a clean end of stream (between frames).
std::optional<Frame> read_frame(int fd, std::uint16_t expected_version);

}  // namespace fhmoe::wire
