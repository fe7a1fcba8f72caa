#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "fhmoe/wire/fd_io.hpp"
#include "fhmoe/wire/frame.hpp"

namespace fhmoe::wire {
namespace {

constexpr std::uint16_t version = 7;

std::vector<std::uint8_t> payload_of(const std::string& text) { return {text.begin(), text.end()}; }

FrameErrorKind kind_of(const std::vector<std::uint8_t>& bytes, std::uint16_t expected) {
    try {
        decode_frame(bytes, expected);
    } catch (const FrameError& error) {
        return error.kind();
    }
    ADD_FAILURE() << "expected a FrameError";
    return FrameErrorKind::truncated;
}

TEST(Frame, RoundTrips) {
    const auto payload = payload_of("candidate result");
    const auto bytes = encode_frame(version, 105, payload);
    ASSERT_EQ(bytes.size(), frame_header_bytes + payload.size());
    const Frame frame = decode_frame(bytes, version);
    EXPECT_EQ(frame.version, version);
    EXPECT_EQ(frame.type, 105);
    EXPECT_EQ(frame.payload, payload);
}

TEST(Frame, EmptyPayloadRoundTrips) {
    const Frame frame = decode_frame(encode_frame(version, 4, {}), version);
    EXPECT_EQ(frame.type, 4);
    EXPECT_TRUE(frame.payload.empty());
}

TEST(Frame, TruncatedAnywhereIsTruncated) {
    const auto bytes = encode_frame(version, 1, payload_of("abcdef"));
    for (std::size_t keep = 0; keep < bytes.size(); ++keep) {
        const std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + keep);
        EXPECT_EQ(kind_of(cut, version), FrameErrorKind::truncated) << keep << " bytes";
    }
}

TEST(Frame, FlippedPayloadBitIsABadChecksum) {
    auto bytes = encode_frame(version, 1, payload_of("abcdef"));
    bytes.back() ^= 0x01;
    EXPECT_EQ(kind_of(bytes, version), FrameErrorKind::bad_checksum);
}

TEST(Frame, WrongVersionSaysWhichVersions) {
    const auto bytes = encode_frame(version, 1, payload_of("x"));
    try {
        decode_frame(bytes, version + 1);
        FAIL() << "expected FrameError";
    } catch (const FrameError& error) {
        EXPECT_EQ(error.kind(), FrameErrorKind::bad_version);
        EXPECT_NE(std::string(error.what()).find("frame protocol version 7, expected 8"),
                  std::string::npos)
            << error.what();
    }
}

TEST(Frame, BadMagicAndOversizedLengthAreRejected) {
    auto bytes = encode_frame(version, 1, payload_of("x"));
    auto bad_magic = bytes;
    bad_magic[0] ^= 0xFF;
    EXPECT_EQ(kind_of(bad_magic, version), FrameErrorKind::bad_magic);
    auto huge = bytes;
    huge[8] = huge[9] = huge[10] = huge[11] = 0xFF;  // length field
    EXPECT_EQ(kind_of(huge, version), FrameErrorKind::too_large);
}

TEST(FrameDecoder, AssemblesFramesFedOneByteAtATime) {
    std::vector<std::uint8_t> stream;
    for (const char* text : {"first", "", "third"}) {
        const auto frame = encode_frame(version, 2, payload_of(text));
        stream.insert(stream.end(), frame.begin(), frame.end());
    }
    FrameDecoder decoder(version);
    std::vector<std::string> seen;
    for (std::uint8_t byte : stream) {
        decoder.feed(std::span<const std::uint8_t>(&byte, 1));
        while (auto frame = decoder.next()) {
            seen.emplace_back(frame->payload.begin(), frame->payload.end());
        }
    }
    EXPECT_EQ(seen, (std::vector<std::string>{"first", "", "third"}));
    EXPECT_FALSE(decoder.mid_frame());
}

TEST(FdIo, LargeFrameCrossesASocketInPartialWritesAndReads) {
    int ends[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, ends), 0);
    std::vector<std::uint8_t> payload(3 << 20);  // far beyond the socket buffer
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i * 31);
    std::thread writer([&] {
        write_frame(ends[0], version, 9, payload);
        ::close(ends[0]);
    });
    const auto frame = read_frame(ends[1], version);
    writer.join();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->payload, payload);
    EXPECT_FALSE(read_frame(ends[1], version).has_value());  // clean end of stream
    ::close(ends[1]);
}

TEST(FdIo, EndOfStreamInsideAFrameIsTruncated) {
    int ends[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, ends), 0);
    const auto bytes = encode_frame(version, 1, payload_of("cut short"));
    write_all(ends[0], std::span<const std::uint8_t>(bytes).first(bytes.size() - 3));
    ::close(ends[0]);
    try {
        read_frame(ends[1], version);
        FAIL() << "expected FrameError";
    } catch (const FrameError& error) {
        EXPECT_EQ(error.kind(), FrameErrorKind::truncated);
    }
    ::close(ends[1]);
}

TEST(FdIo, WritingToAClosedPeerIsAnErrorNotSigpipe) {
    int ends[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, ends), 0);
    ::close(ends[1]);
    const auto bytes = encode_frame(version, 1, payload_of("nobody listens"));
    EXPECT_THROW(write_all(ends[0], bytes), WireError);
    ::close(ends[0]);
}

}  // namespace
}  // namespace fhmoe::wire
