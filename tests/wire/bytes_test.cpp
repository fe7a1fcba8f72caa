#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fhmoe/wire/bytes.hpp"
#include "fhmoe/wire/crc32.hpp"

namespace fhmoe::wire {
namespace {

TEST(ByteWriter, WritesLittleEndian) {
    ByteWriter out;
    out.u32(0x01020304U);
    out.u16(0x0506U);
    EXPECT_EQ(out.bytes(), (std::vector<std::uint8_t>{0x04, 0x03, 0x02, 0x01, 0x06, 0x05}));
}

TEST(ByteReader, RoundTripsEveryType) {
    ByteWriter out;
    out.u8(200);
    out.u16(65000);
    out.u32(4000000000U);
    out.u64(0xFEDCBA9876543210ULL);
    out.i32(-7);
    out.i64(std::numeric_limits<std::int64_t>::min());
    out.f64(-0.1);
    out.f64(std::numeric_limits<double>::infinity());
    out.boolean(true);
    out.string("shape t3 \xce\xbc");
    out.string("");
    const std::vector<double> samples = {1.5, 2.25, -3.0};
    out.f64_vector(samples);

    ByteReader in(out.bytes());
    EXPECT_EQ(in.u8(), 200);
    EXPECT_EQ(in.u16(), 65000);
    EXPECT_EQ(in.u32(), 4000000000U);
    EXPECT_EQ(in.u64(), 0xFEDCBA9876543210ULL);
    EXPECT_EQ(in.i32(), -7);
    EXPECT_EQ(in.i64(), std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(in.f64(), -0.1);
    EXPECT_TRUE(std::isinf(in.f64()));
    EXPECT_TRUE(in.boolean());
    EXPECT_EQ(in.string(), "shape t3 \xce\xbc");
    EXPECT_EQ(in.string(), "");
    EXPECT_EQ(in.f64_vector(), samples);
    EXPECT_NO_THROW(in.expect_end());
}

TEST(ByteReader, TruncationIsAnErrorNamingTheOffset) {
    ByteWriter out;
    out.u16(1);
    ByteReader in(out.bytes());
    try {
        in.u32();
        FAIL() << "expected WireError";
    } catch (const WireError& error) {
        EXPECT_NE(std::string(error.what()).find("truncated: need 4 bytes at offset 0 of 2"),
                  std::string::npos)
            << error.what();
    }
}

TEST(ByteReader, StringLongerThanTheBufferIsTruncation) {
    ByteWriter out;
    out.u32(1000);  // claims 1000 bytes, has 3
    out.u8('a');
    out.u8('b');
    out.u8('c');
    ByteReader in(out.bytes());
    EXPECT_THROW(in.string(), WireError);
}

TEST(ByteReader, CorruptCountCannotAllocateBeyondTheBuffer) {
    ByteWriter out;
    out.u32(0xFFFFFFFFU);
    ByteReader in(out.bytes());
    EXPECT_THROW(in.f64_vector(), WireError);
}

TEST(ByteReader, BadBooleanAndTrailingBytesAreErrors) {
    ByteWriter out;
    out.u8(2);
    ByteReader bad_bool(out.bytes());
    EXPECT_THROW(bad_bool.boolean(), WireError);
    ByteReader trailing(out.bytes());
    EXPECT_THROW(trailing.expect_end(), WireError);
}

TEST(Crc32, MatchesTheStandardCheckValue) {
    const std::string check = "123456789";
    const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(check.data()),
                                              check.size());
    EXPECT_EQ(crc32(bytes), 0xCBF43926U);
    EXPECT_EQ(crc32(bytes.subspan(4), crc32(bytes.first(4))), 0xCBF43926U);  // incremental
    EXPECT_EQ(crc32({}), 0U);
}

}  // namespace
}  // namespace fhmoe::wire
