#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "common/e8m0.hpp"

namespace fhmoe::kernels {
namespace {

TEST(E8m0, EveryFiniteCodeIsAnExactPowerOfTwo) {
    for (int c = 0; c < 255; ++c) {
        const auto code = static_cast<std::uint8_t>(c);
        EXPECT_EQ(static_cast<double>(decode_e8m0(code)), std::ldexp(1.0, c - 127)) << c;
        EXPECT_EQ(e8m0_exponent(code), c - 127);
        EXPECT_FALSE(e8m0_is_nan(code));
    }
    EXPECT_GT(decode_e8m0(0x00), 0.0f);  // 2^-127: an fp32 subnormal, not zero
    EXPECT_EQ(decode_e8m0(0x7F), 1.0f);
    EXPECT_EQ(decode_e8m0(0xFE), std::ldexp(1.0f, 127));
}

TEST(E8m0, CodeFFIsNaN) {
    EXPECT_TRUE(e8m0_is_nan(0xFF));
    EXPECT_TRUE(std::isnan(decode_e8m0(0xFF)));
}

TEST(E8m0, EncodingAnExponentClampsToTheRangeAndNeverGivesNaN) {
    EXPECT_EQ(encode_e8m0_exponent(0), 0x7F);
    EXPECT_EQ(encode_e8m0_exponent(-127), 0x00);
    EXPECT_EQ(encode_e8m0_exponent(-300), 0x00);
    EXPECT_EQ(encode_e8m0_exponent(127), 0xFE);
    EXPECT_EQ(encode_e8m0_exponent(128), 0xFE);
}

}  // namespace
}  // namespace fhmoe::kernels
