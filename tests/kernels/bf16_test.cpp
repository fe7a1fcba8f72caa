#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/bf16.hpp"

namespace fhmoe::kernels {
namespace {

TEST(Bf16, EveryCodeRoundTrips) {
    for (std::uint32_t c = 0; c <= 0xFFFF; ++c) {
        const auto code = static_cast<std::uint16_t>(c);
        const float value = decode_bf16(code);
        EXPECT_EQ(std::bit_cast<std::uint32_t>(value), c << 16);
        if (std::isnan(value)) {
            EXPECT_TRUE(std::isnan(decode_bf16(encode_bf16(value)))) << c;
        } else {
            EXPECT_EQ(encode_bf16(value), code) << c;
        }
    }
}

TEST(Bf16, MidpointsRoundToTheEvenCode) {
    EXPECT_EQ(encode_bf16(std::bit_cast<float>(0x3F808000u)), 0x3F80);  // even below
    EXPECT_EQ(encode_bf16(std::bit_cast<float>(0x3F818000u)), 0x3F82);  // even above
    EXPECT_EQ(encode_bf16(std::bit_cast<float>(0x3F808001u)), 0x3F81);
    EXPECT_EQ(encode_bf16(std::bit_cast<float>(0xBF808000u)), 0xBF80);
}

TEST(Bf16, OverflowRoundsToInfinityAndNaNStaysNaN) {
    EXPECT_EQ(encode_bf16(std::numeric_limits<float>::max()), 0x7F80);
    EXPECT_EQ(encode_bf16(-std::numeric_limits<float>::infinity()), 0xFF80);
    // A NaN whose payload sits in the low half would become infinity under truncation.
    const std::uint16_t nan = encode_bf16(std::bit_cast<float>(0x7F800001u));
    EXPECT_TRUE(std::isnan(decode_bf16(nan)));
    EXPECT_TRUE(std::signbit(decode_bf16(encode_bf16(-std::numeric_limits<float>::quiet_NaN()))));
    EXPECT_EQ(encode_bf16(-0.0f), 0x8000);
}

}  // namespace
}  // namespace fhmoe::kernels
