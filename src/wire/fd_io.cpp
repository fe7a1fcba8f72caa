#include "fhmoe/wire/fd_io.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace fhmoe::wire {

void write_all(int fd, std::span<const std::uint8_t> bytes) {
    std::size_t done = 0;
    bool is_socket = true;
    while (done < bytes.size()) {
        const void* at = bytes.data() + done;
        const std::size_t left = bytes.size() - done;
        ssize_t n = is_socket ? ::send(fd, at, left, MSG_NOSIGNAL) : ::write(fd, at, left);
        if (n < 0 && is_socket && errno == ENOTSOCK) {
            is_socket = false;
            continue;
        }
        if (n < 0) {
            if (errno == EINTR) continue;
            throw WireError("write to fd " + std::to_string(fd) +
                            " failed: " + std::strerror(errno));
        }
        done += static_cast<std::size_t>(n);
    }
}

bool read_exact(int fd, std::span<std::uint8_t> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw WireError("read from fd " + std::to_string(fd) +
                            " failed: " + std::strerror(errno));
        }
        if (n == 0) {
            if (done == 0) return false;
            throw FrameError(FrameErrorKind::truncated,
                             "truncated frame: end of stream after " + std::to_string(done) +
                                 " of " + std::to_string(bytes.size()) + " bytes");
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

void write_frame(int fd, std::uint16_t version, std::uint16_t type,
                 std::span<const std::uint8_t> payload) {
    write_all(fd, encode_frame(version, type, payload));
}

std::optional<Frame> read_frame(int fd, std::uint16_t expected_version) {
    FrameDecoder decoder(expected_version);
    std::uint8_t header[frame_header_bytes];
    if (!read_exact(fd, header)) return std::nullopt;
    decoder.feed(header);
    // The header is validated before the payload is read, so a bad length is never awaited.
    if (auto frame = decoder.next()) return frame;
    ByteReader reader(std::span<const std::uint8_t>(header).subspan(8, 4));
    std::vector<std::uint8_t> payload(reader.u32());
    bool complete = false;
    try {
        complete = read_exact(fd, payload);
    } catch (const FrameError&) {
        complete = false;
    }
    if (!complete) {
        throw FrameError(FrameErrorKind::truncated,
                         "truncated frame: end of stream inside a payload of " +
                             std::to_string(payload.size()) + " bytes");
    }
    decoder.feed(payload);
    auto frame = decoder.next();
    if (!frame) throw InternalError("complete frame did not decode");
    return frame;
}

}  // namespace fhmoe::wire
