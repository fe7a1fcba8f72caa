#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/fp4_e2m1.hpp"

namespace fhmoe::kernels {
namespace {

constexpr float kMagnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

TEST(Fp4E2m1, EveryCodeDecodesToTheOcpTableAndReencodesToItself) {
    for (int c = 0; c < 16; ++c) {
        const auto code = static_cast<std::uint8_t>(c);
        const float value = decode_fp4_e2m1(code);
        const float expected = (c & 8) != 0 ? -kMagnitudes[c & 7] : kMagnitudes[c & 7];
        EXPECT_EQ(value, expected) << c;
        EXPECT_EQ(std::signbit(value), (c & 8) != 0) << c;
        EXPECT_EQ(encode_fp4_e2m1(value), code) << c;
    }
}

TEST(Fp4E2m1, MidpointsRoundToTheEvenCode) {
    // (value, expected code): each value is the midpoint of two neighbours.
    const std::pair<float, std::uint8_t> ties[] = {
        {0.25f, 0x0}, {0.75f, 0x2}, {1.25f, 0x2}, {1.75f, 0x4},
        {2.5f, 0x4},  {3.5f, 0x6},  {5.0f, 0x6},
    };
    for (const auto& [value, code] : ties) {
        EXPECT_EQ(encode_fp4_e2m1(value), code) << value;
        EXPECT_EQ(encode_fp4_e2m1(-value), code | 0x8) << -value;
    }
    EXPECT_EQ(encode_fp4_e2m1(std::nextafter(0.25f, 1.0f)), 0x1);
    EXPECT_EQ(encode_fp4_e2m1(std::nextafter(5.0f, 0.0f)), 0x6);
    EXPECT_EQ(encode_fp4_e2m1(std::nextafter(5.0f, 9.0f)), 0x7);
}

TEST(Fp4E2m1, SaturatesAtSixAndHasNoNaN) {
    EXPECT_EQ(encode_fp4_e2m1(7.0f), 0x7);
    EXPECT_EQ(encode_fp4_e2m1(1.0e9f), 0x7);
    EXPECT_EQ(encode_fp4_e2m1(-std::numeric_limits<float>::infinity()), 0xF);
    EXPECT_EQ(encode_fp4_e2m1(std::numeric_limits<float>::quiet_NaN()), 0x0);
    EXPECT_EQ(encode_fp4_e2m1(-std::numeric_limits<float>::quiet_NaN()), 0x8);
}

TEST(Fp4E2m1, PackingPutsTheEvenElementInTheLowNibble) {
    const std::uint8_t packed[2] = {pack_fp4x2(0x1, 0xA), pack_fp4x2(0x7, 0x0)};
    EXPECT_EQ(packed[0], 0xA1);
    EXPECT_EQ(fp4x2_element(packed, 0), 0x1);
    EXPECT_EQ(fp4x2_element(packed, 1), 0xA);
    EXPECT_EQ(fp4x2_element(packed, 2), 0x7);
    EXPECT_EQ(fp4x2_element(packed, 3), 0x0);
}

TEST(Fp4E2m1, ScaledEncodingDividesByThePowerOfTwo) {
    EXPECT_EQ(encode_fp4_e2m1_scaled(12.0f, 2), 0x5);      // 12 / 4 = 3
    EXPECT_EQ(encode_fp4_e2m1_scaled(0.09375f, -5), 0x5);  // 0.09375 * 32 = 3
    EXPECT_EQ(encode_fp4_e2m1_scaled(-40.0f, 3), 0xE);     // -5: a tie, to the even -4
}

}  // namespace
}  // namespace fhmoe::kernels
