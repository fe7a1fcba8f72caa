#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "common/mx_block.hpp"

namespace fhmoe::kernels {
namespace {

using Block = std::array<float, kMxBlockSize>;

Block ramp(float step) {
    Block values{};
    for (int i = 0; i < kMxBlockSize; ++i) values[i] = step * static_cast<float>(i - 12);
    return values;
}

TEST(MxBlockFp8, SharedExponentIsFloorLog2OfTheMaxMinusEight) {
    std::array<std::uint8_t, kMxBlockSize> codes{};
    Block values{};
    values[5] = -1.0f;  // max |x| = 1 -> 2^(0 - 8)
    EXPECT_EQ(quantize_mx_block_fp8(values.data(), codes.data()), 127 - 8);
    EXPECT_EQ(decode_fp8_e4m3(codes[5]), -256.0f);
    values[7] = 3.9f;  // floor(log2 3.9) = 1 -> 2^-7
    EXPECT_EQ(quantize_mx_block_fp8(values.data(), codes.data()), 127 - 7);
    values[9] = 448.0f;  // 2^(8 - 8) = 1: the value is its own code
    EXPECT_EQ(quantize_mx_block_fp8(values.data(), codes.data()), 127);
    EXPECT_EQ(codes[9], 0x7E);
}

TEST(MxBlockFp8, TheLargestElementSaturatesAboveTheFormatMaximum) {
    Block values{};
    values[0] = 511.0f;  // floor(log2) = 8 -> scale 1; 511 > 448 saturates
    values[1] = 300.0f;
    std::array<std::uint8_t, kMxBlockSize> codes{};
    EXPECT_EQ(quantize_mx_block_fp8(values.data(), codes.data()), 127);
    EXPECT_EQ(decode_fp8_e4m3(codes[0]), 448.0f);
    EXPECT_EQ(decode_fp8_e4m3(codes[1]), 288.0f);  // 300 -> nearest of 288/320
}

TEST(MxBlockFp8, RoundTripErrorIsWithinHalfAStepOfTheSharedGrid) {
    for (float step : {1.0e-3f, 0.37f, 11.0f, 3.0e4f}) {
        const Block values = ramp(step);
        std::array<std::uint8_t, kMxBlockSize> codes{};
        Block restored{};
        const std::uint8_t scale = quantize_mx_block_fp8(values.data(), codes.data());
        dequantize_mx_block_fp8(codes.data(), scale, restored.data());
        const float unit = decode_e8m0(scale);
        for (int i = 0; i < kMxBlockSize; ++i) {
            const float magnitude = std::abs(values[i]) / unit;
            // e4m3 spacing at this magnitude: 2^(floor(log2 m) - 3), at least 2^-9.
            const float spacing =
                magnitude < std::ldexp(1.0f, -6)
                    ? std::ldexp(1.0f, -9)
                    : std::ldexp(1.0f, static_cast<int>(std::floor(std::log2(magnitude))) - 3);
            const float allowed = std::max(spacing / 2.0f, magnitude - 448.0f) * unit;
            EXPECT_LE(std::abs(restored[i] - values[i]), allowed) << step << " " << i;
        }
    }
}

TEST(MxBlockFp8, ZeroBlockGetsTheSmallestScaleAndNonFiniteGetsNaN) {
    Block values{};
    std::array<std::uint8_t, kMxBlockSize> codes{};
    EXPECT_EQ(quantize_mx_block_fp8(values.data(), codes.data()), 0x00);
    for (std::uint8_t code : codes) EXPECT_EQ(code, 0x00);
    values[3] = std::numeric_limits<float>::infinity();
    EXPECT_EQ(quantize_mx_block_fp8(values.data(), codes.data()), kE8m0NanCode);
    values[3] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(quantize_mx_block_fp8(values.data(), codes.data()), kE8m0NanCode);
    Block restored{};
    dequantize_mx_block_fp8(codes.data(), kE8m0NanCode, restored.data());
    EXPECT_TRUE(std::isnan(restored[0]));
}

TEST(MxBlockFp4, SharedExponentIsFloorLog2OfTheMaxMinusTwoAndPacksLowNibbleFirst) {
    Block values{};
    values[0] = 0.75f;   // / 2^-1 = 1.5 -> code 3
    values[1] = -1.5f;   // / 2^-1 = -3 -> code 0xD
    values[2] = 3.0f;    // max: floor(log2 3) = 1 -> scale 2^(1 - 2)
    values[3] = 0.125f;  // / 2^-1 = 0.25: tie between 0 and 0.5 -> 0
    std::array<std::uint8_t, kMxBlockSize / 2> packed{};
    EXPECT_EQ(quantize_mx_block_fp4(values.data(), packed.data()), 127 - 1);
    EXPECT_EQ(packed[0], 0xD3);
    EXPECT_EQ(packed[1], 0x07);  // 3 / 0.5 = 6 is code 7; the tie 0.25 goes to code 0
    Block restored{};
    dequantize_mx_block_fp4(packed.data(), 127 - 1, restored.data());
    EXPECT_EQ(restored[0], 0.75f);
    EXPECT_EQ(restored[1], -1.5f);
    EXPECT_EQ(restored[3], 0.0f);
}

TEST(MxBlockFp4, TheLargestElementSaturatesAtSix) {
    Block values{};
    values[0] = 7.5f;  // floor(log2 7.5) = 2 -> scale 1 -> 7.5 saturates to 6
    std::array<std::uint8_t, kMxBlockSize / 2> packed{};
    EXPECT_EQ(quantize_mx_block_fp4(values.data(), packed.data()), 127);
    EXPECT_EQ(packed[0] & 0x0F, 0x7);
}

}  // namespace
}  // namespace fhmoe::kernels
