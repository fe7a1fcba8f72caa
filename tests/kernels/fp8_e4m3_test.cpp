#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/fp8_e4m3.hpp"

namespace fhmoe::kernels {
namespace {

// Independent oracle: the OCP table definition, evaluated in double.
double e4m3_value_by_definition(std::uint8_t code) {
    const int field = (code >> 3) & 0xF;
    const int mantissa = code & 0x7;
    const double magnitude =
        field == 0 ? std::ldexp(mantissa / 8.0, -6) : std::ldexp(1.0 + mantissa / 8.0, field - 7);
    return (code & 0x80) != 0 ? -magnitude : magnitude;
}

TEST(Fp8E4m3, EveryCodeDecodesToItsDefinitionAndReencodesToItself) {
    for (int c = 0; c < 256; ++c) {
        const auto code = static_cast<std::uint8_t>(c);
        const float value = decode_fp8_e4m3(code);
        if ((code & 0x7F) == 0x7F) {
            EXPECT_TRUE(std::isnan(value)) << c;
            EXPECT_EQ(encode_fp8_e4m3(value), code) << "NaN keeps its sign: " << c;
            continue;
        }
        EXPECT_EQ(static_cast<double>(value), e4m3_value_by_definition(code)) << c;
        EXPECT_EQ(std::signbit(value), (code & 0x80) != 0) << c;
        EXPECT_EQ(encode_fp8_e4m3(value), code) << c;
    }
}

TEST(Fp8E4m3, RangeLimitsAreThoseOfTheFnVariant) {
    EXPECT_EQ(decode_fp8_e4m3(0x7E), 448.0f);
    EXPECT_EQ(decode_fp8_e4m3(0x08), std::ldexp(1.0f, -6));  // smallest normal
    EXPECT_EQ(decode_fp8_e4m3(0x01), std::ldexp(1.0f, -9));  // smallest subnormal
    EXPECT_TRUE(std::isnan(decode_fp8_e4m3(0xFF)));
    EXPECT_EQ(decode_fp8_e4m3(0x78), 256.0f);  // 0x78 is a number, not infinity
}

TEST(Fp8E4m3, MidpointsRoundToTheEvenCode) {
    for (int c = 0; c < 0x7E; ++c) {
        for (std::uint8_t sign : {std::uint8_t{0}, std::uint8_t{0x80}}) {
            const auto low = static_cast<std::uint8_t>(c | sign);
            const auto high = static_cast<std::uint8_t>((c + 1) | sign);
            const float midpoint = (decode_fp8_e4m3(low) + decode_fp8_e4m3(high)) / 2.0f;
            const std::uint8_t even = (c & 1) == 0 ? low : high;
            EXPECT_EQ(encode_fp8_e4m3(midpoint), even) << "between codes " << c << ", " << c + 1;
            // Just off the midpoint goes to the nearer code.
            const float above = std::nextafter(midpoint, 1000.0f * (sign ? -1.0f : 1.0f));
            const float below = std::nextafter(midpoint, 0.0f);
            EXPECT_EQ(encode_fp8_e4m3(above), high) << c;
            EXPECT_EQ(encode_fp8_e4m3(below), low) << c;
        }
    }
}

TEST(Fp8E4m3, SaturatesInsteadOfOverflowing) {
    EXPECT_EQ(encode_fp8_e4m3(449.0f), 0x7E);
    EXPECT_EQ(encode_fp8_e4m3(464.0f), 0x7E);  // the tie above 448 has no code to go to
    EXPECT_EQ(encode_fp8_e4m3(1.0e30f), 0x7E);
    EXPECT_EQ(encode_fp8_e4m3(std::numeric_limits<float>::infinity()), 0x7E);
    EXPECT_EQ(encode_fp8_e4m3(-std::numeric_limits<float>::infinity()), 0xFE);
    EXPECT_EQ(encode_fp8_e4m3(-500.0f), 0xFE);
}

TEST(Fp8E4m3, NaNEncodesToTheNaNCodesWithItsSign) {
    EXPECT_EQ(encode_fp8_e4m3(std::numeric_limits<float>::quiet_NaN()), 0x7F);
    EXPECT_EQ(encode_fp8_e4m3(-std::numeric_limits<float>::quiet_NaN()), 0xFF);
}

TEST(Fp8E4m3, UnderflowRoundsToSignedZeroOrTheSmallestSubnormal) {
    const float smallest = std::ldexp(1.0f, -9);
    EXPECT_EQ(encode_fp8_e4m3(smallest / 2.0f), 0x00);  // tie: zero is even
    EXPECT_EQ(encode_fp8_e4m3(std::nextafter(smallest / 2.0f, 1.0f)), 0x01);
    EXPECT_EQ(encode_fp8_e4m3(-smallest / 4.0f), 0x80);
    EXPECT_EQ(encode_fp8_e4m3(std::numeric_limits<float>::denorm_min()), 0x00);
}

TEST(Fp8E4m3, EncodingMatchesABruteForceNearestSearch) {
    // Nearest code by exhaustive search in double, ties to even, over a sweep of magnitudes
    // that crosses the subnormal, normal and saturated ranges.
    for (int i = 0; i < 20000; ++i) {
        const float value = std::ldexp(1.0f + static_cast<float>(i % 997) / 997.0f, i % 24 - 14);
        std::uint8_t best = 0;
        double best_distance = std::numeric_limits<double>::infinity();
        for (int c = 0; c <= 0x7E; ++c) {
            const double distance =
                std::abs(e4m3_value_by_definition(static_cast<std::uint8_t>(c)) - value);
            if (distance < best_distance || (distance == best_distance && (c & 1) == 0)) {
                best_distance = distance;
                best = static_cast<std::uint8_t>(c);
            }
        }
        if (value > 448.0f) best = 0x7E;
        EXPECT_EQ(encode_fp8_e4m3(value), best) << value;
    }
}

TEST(Fp8E4m3, ScaledEncodingDividesExactlyEvenBeyondFp32Range) {
    EXPECT_EQ(encode_fp8_e4m3_scaled(3.0f, 1), encode_fp8_e4m3(1.5f));
    EXPECT_EQ(encode_fp8_e4m3_scaled(0.75f, -8), encode_fp8_e4m3(192.0f));
    // 2^-140 * 1.5 is an fp32 subnormal; divided by 2^-140 it is exactly 1.5.
    const float tiny = std::ldexp(1.5f, -140);
    EXPECT_EQ(encode_fp8_e4m3_scaled(tiny, -140), encode_fp8_e4m3(1.5f));
}

}  // namespace
}  // namespace fhmoe::kernels
