// The gpu backend's two MXFP8 quantizers (the 4-threads-per-block pass that writes the mma
// layout, and the per-lane one of fused routing and stage1's epilogue) against the reference
// block quantizer, code for code and scale for scale. On NVIDIA both round with the hardware
// e4m3 conversion (gpu/lane_group_quant.hpp), so the inputs go where a rounding rule differs:
// exact ties in every binade (normal and subnormal e4m3), their neighbours, the values that
// saturate to 448, fp32-subnormal and tiny blocks, zero and non-finite blocks, and seeded
// random blocks over the whole BF16 exponent range.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "common/bf16.hpp"
#include "common/e8m0.hpp"
#include "common/fp8_e4m3.hpp"
#include "common/mx_block.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_test_environment.hpp"
#include "gpu/matrix_args.hpp"
#include "gpu/matrix_layout.hpp"

namespace fhmoe::kernels::testing {
namespace {

constexpr std::int64_t kColumns = 256;  // a whole number of mma pairs (64 columns)
constexpr std::uint64_t kSeed = 20261202;

using Block = std::vector<float>;

// 32 BF16-exact values per block; element 0 carries the block's largest magnitude where the
// case needs a known scale (max = 448 * 2^s gives scale exponent s: 448 = 1.75 * 2^8).
std::vector<Block> crafted_blocks() {
    std::vector<Block> blocks;
    for (int s : {-120, -30, -9, 0, 7, 100}) {
        const float unit = std::ldexp(1.0f, s);
        Block ties(32);
        ties[0] = 448.0f * unit;
        // Exact halfway points between e4m3 neighbours (ties go to the even code): in the
        // normal binades 2^-6..2^8 (quantum 2^(E-3)) and in the subnormal range (quantum 2^-9).
        int i = 1;
        for (int e = -6; e <= 7; ++e, ++i) {
            const float mantissa = 8.0f + static_cast<float>(i % 8) + 0.5f;
            ties[i] = std::ldexp(mantissa, e - 3) * unit;
        }
        for (int m = 0; m < 8; ++m, ++i)
            ties[i] = -std::ldexp(static_cast<float>(m) + 0.5f, -9) * unit;
        for (; i < 32; ++i) ties[i] = std::ldexp(0.25f, -9) * unit;  // a quarter quantum: zero
        blocks.push_back(ties);

        // The BF16 neighbours of those ties: round down below, up above.
        Block below(32), above(32);
        for (int j = 0; j < 32; ++j) {
            const std::uint16_t b = encode_bf16(ties[j]);
            below[j] = decode_bf16(static_cast<std::uint16_t>(j == 0 ? b : b - 1));
            above[j] = decode_bf16(static_cast<std::uint16_t>(j == 0 ? b : b + 1));
        }
        blocks.push_back(below);
        blocks.push_back(above);

        // The top of the range: 448..511 * 2^s keep scale exponent s, and what rounds past
        // 448 saturates there (464 is a tie to 448's even code, 480 has no e4m3 code).
        Block top(32);
        for (int j = 0; j < 32; ++j)
            top[j] = (j % 2 ? -1.0f : 1.0f) * (448.0f + 2.0f * static_cast<float>(j)) * unit;
        blocks.push_back(top);
    }
    blocks.push_back(Block(32, 0.0f));                    // zero: the smallest scale
    blocks.push_back(Block(32, -0.0f));                   // negative zeros keep the sign
    blocks.push_back(Block(32, std::ldexp(1.5f, -133)));  // BF16 subnormals
    Block mixed_tiny(32);
    for (int j = 0; j < 32; ++j) mixed_tiny[j] = std::ldexp(static_cast<float>(j - 16), -130);
    blocks.push_back(mixed_tiny);
    Block with_nan(32, 1.0f);
    with_nan[5] = std::nanf("");
    blocks.push_back(with_nan);
    Block with_infinity(32, -2.0f);
    with_infinity[31] = -INFINITY;
    blocks.push_back(with_infinity);
    return blocks;
}

std::vector<Block> random_blocks(int count) {
    std::mt19937_64 rng(kSeed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-140, 120);
    std::vector<Block> blocks;
    for (int b = 0; b < count; ++b) {
        const float unit = std::ldexp(1.0f, exponent(rng));
        Block block(32);
        // Heavy tails inside a block too: some elements far below the block's largest.
        for (int j = 0; j < 32; ++j) {
            block[j] = decode_bf16(encode_bf16(normal(rng) * unit * std::ldexp(1.0f, -(j % 12))));
        }
        blocks.push_back(block);
    }
    return blocks;
}

struct Quantized {
    std::vector<std::uint8_t> codes;  // row-major
    // One per block: the E8M0 code (per-lane quantizer) or the BF16 factor (the mma pass,
    // gpu/matrix_layout.hpp's mx_scale_factor_bf16).
    std::vector<std::uint32_t> scales;
    std::vector<std::uint16_t> values;  // the mma pass's BF16 values, row-major (else empty)
};

enum class Quantizer { four_threads_mma_layout, by_lanes };

Quantized quantize_on_device(Quantizer which, const std::vector<std::uint16_t>& input,
                             std::int64_t rows) {
    bind_test_device();
    const std::int64_t count = rows * kColumns;
    gpu::DeviceBuffer<std::uint16_t> x(input.size());
    x.upload(input);
    gpu::DeviceBuffer<std::uint8_t> codes(static_cast<std::size_t>(count));
    const auto blocks = static_cast<std::size_t>(count / 32);
    gpu::DeviceBuffer<std::uint8_t> scale_codes(blocks);
    gpu::DeviceBuffer<std::uint16_t> scale_factors(blocks);
    gpu::DeviceBuffer<std::uint16_t> values(static_cast<std::size_t>(count));
    if (which == Quantizer::four_threads_mma_layout) {
        gpu::launch_mxfp8_quant_mma(x.data(), rows, kColumns, codes.data(), scale_factors.data(),
                                    values.data(), nullptr);
    } else {
        gpu::launch_mxfp8_quant_by_lanes(x.data(), rows, kColumns, codes.data(), scale_codes.data(),
                                         nullptr);
    }
    FHMOE_GPU_CHECK(hipDeviceSynchronize());
    std::vector<std::uint8_t> raw_codes(static_cast<std::size_t>(count));
    std::vector<std::uint16_t> raw_values(static_cast<std::size_t>(count));
    std::vector<std::uint8_t> codes_of_scales(blocks);
    std::vector<std::uint16_t> factors(blocks);
    FHMOE_GPU_CHECK(
        hipMemcpy(raw_codes.data(), codes.data(), codes.bytes(), hipMemcpyDeviceToHost));
    FHMOE_GPU_CHECK(hipMemcpy(codes_of_scales.data(), scale_codes.data(), scale_codes.bytes(),
                              hipMemcpyDeviceToHost));
    FHMOE_GPU_CHECK(hipMemcpy(factors.data(), scale_factors.data(), scale_factors.bytes(),
                              hipMemcpyDeviceToHost));
    FHMOE_GPU_CHECK(
        hipMemcpy(raw_values.data(), values.data(), values.bytes(), hipMemcpyDeviceToHost));
    Quantized q;
    if (which == Quantizer::by_lanes) {
        q.codes = raw_codes;
        q.scales.assign(codes_of_scales.begin(), codes_of_scales.end());
        return q;
    }
    q.scales.assign(factors.begin(), factors.end());
    q.codes.resize(raw_codes.size());
    q.values.resize(raw_values.size());
    for (std::int64_t row = 0; row < rows; ++row) {
        for (std::int64_t block = 0; block < kColumns / 32; ++block) {
            for (int e = 0; e < 32; ++e) {
                const std::size_t at = static_cast<std::size_t>(row * kColumns + block * 32 + e);
                q.codes[at] = raw_codes[static_cast<std::size_t>(
                    gpu::mma_code_offset(row, block, e, kColumns))];
                q.values[at] = raw_values[static_cast<std::size_t>(
                    gpu::activation_bf16_index(row, block, e, kColumns))];
            }
        }
    }
    return q;
}

void expect_reference_codes(Quantizer which) {
    std::vector<Block> blocks = crafted_blocks();
    const std::vector<Block> random = random_blocks(4096);
    blocks.insert(blocks.end(), random.begin(), random.end());
    while (blocks.size() % (kColumns / 32) != 0) blocks.push_back(Block(32, 1.0f));
    const auto rows = static_cast<std::int64_t>(blocks.size() / (kColumns / 32));

    std::vector<std::uint16_t> input;
    for (const Block& b : blocks) {
        for (float v : b) input.push_back(encode_bf16(v));
    }
    const Quantized device = quantize_on_device(which, input, rows);

    int wrong = 0;
    for (std::size_t b = 0; b < blocks.size() && wrong < 10; ++b) {
        float values[32];
        for (int j = 0; j < 32; ++j) values[j] = decode_bf16(input[b * 32 + j]);
        std::uint8_t codes[32];
        const std::uint8_t scale = quantize_mx_block_fp8(values, codes);
        float dequantized[32];
        dequantize_mx_block_fp8(codes, scale, dequantized);
        const std::uint32_t expected_scale =
            which == Quantizer::by_lanes ? std::uint32_t{scale} : gpu::mx_scale_factor_bf16(scale);
        if (device.scales[b] != expected_scale) {
            ADD_FAILURE() << "block " << b << ": scale 0x" << std::hex << device.scales[b]
                          << ", reference 0x" << expected_scale << std::dec << " (code "
                          << int{scale} << ")";
            ++wrong;
        }
        for (int j = 0; j < 32; ++j) {
            const std::uint8_t got = device.codes[b * 32 + j];
            if (got != codes[j]) {
                ADD_FAILURE() << "block " << b << " element " << j << " (" << values[j]
                              << "): code 0x" << std::hex << int{got} << ", reference 0x"
                              << int{codes[j]} << std::dec;
                ++wrong;
            }
            if (!device.values.empty() && !e8m0_is_nan(scale) &&
                device.values[b * 32 + j] != encode_bf16(dequantized[j])) {
                ADD_FAILURE() << "block " << b << " element " << j << ": BF16 value 0x" << std::hex
                              << device.values[b * 32 + j] << ", reference 0x"
                              << encode_bf16(dequantized[j]) << std::dec;
                ++wrong;
            }
        }
    }
    EXPECT_EQ(wrong, 0);
}

TEST(GpuQuantizer, TheMmaLayoutPassEncodesLikeTheReference) {
    expect_reference_codes(Quantizer::four_threads_mma_layout);
}

TEST(GpuQuantizer, ThePerLaneQuantizerEncodesLikeTheReference) {
    expect_reference_codes(Quantizer::by_lanes);
}

// The crafted cases mean what they say: exact ties, saturation and zero codes all occur.
TEST(GpuQuantizer, TheCraftedBlocksReachEveryRoundingCase) {
    int ties = 0, saturated = 0, zero_codes = 0;
    for (const Block& b : crafted_blocks()) {
        std::uint8_t codes[32];
        const std::uint8_t scale = quantize_mx_block_fp8(b.data(), codes);
        if (e8m0_is_nan(scale)) continue;
        for (int j = 0; j < 32; ++j) {
            const float scaled = std::fabs(std::ldexp(b[j], -e8m0_exponent(scale)));
            // The e4m3 quantum at this magnitude: 2^-9 below 2^-6 (subnormal), else 2^(E-3).
            const float quantum = scaled < std::ldexp(1.0f, -6)
                                      ? std::ldexp(1.0f, -9)
                                      : std::ldexp(1.0f, std::ilogb(scaled) - 3);
            const float quanta = scaled / quantum;
            if (scaled <= 448.0f && quanta - std::floor(quanta) == 0.5f) ++ties;
            if (scaled > 448.0f) ++saturated;
            if (codes[j] == 0 || codes[j] == 0x80) ++zero_codes;
        }
    }
    EXPECT_GT(ties, 100);
    EXPECT_GT(saturated, 20);
    EXPECT_GT(zero_codes, 20);
}

}  // namespace
}  // namespace fhmoe::kernels::testing
