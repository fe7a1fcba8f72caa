#pragma once

// MXFP8 quantization of one 1x32 block by 32 lanes together, lane i holding element i: the
// shared scale from a 5-step butterfly maximum, then each lane encodes its own element. The
// same codes and scale as quantize_mx_block_fp8 (common/mx_block.hpp, the reference's), without
// one thread's 32-element serial loop, which cost a decode step ~10 us per quantization pass.
// Device TUs only; every lane of the group must call it.

#include <cstdint>

#include "common/bf16.hpp"
#include "common/e8m0.hpp"
#include "common/float_bits.hpp"
#include "common/fp8_e4m3.hpp"
#include "common/mx_block.hpp"
#include "gpu/matrix_layout.hpp"
#include "gpu/portability.hpp"

namespace fhmoe::kernels::gpu {

// Returns this lane's e4m3 code; `scale` receives the block's E8M0 code (the same in every lane).
__device__ inline std::uint8_t quantize_mx_fp8_by_lanes(float value, std::uint8_t& scale) {
    const std::uint32_t bits = float_to_bits(value);
    float non_finite = is_finite_bits(bits) ? 0.0f : 1.0f;
    float max_abs = is_finite_bits(bits) ? bits_to_float(bits & kFp32AbsMask) : 0.0f;
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        max_abs = fmaxf(max_abs, shuffle_xor_32(max_abs, mask));
        non_finite = fmaxf(non_finite, shuffle_xor_32(non_finite, mask));
    }
    if (non_finite != 0.0f) {
        scale = kE8m0NanCode;
        return kFp8E4m3NanCode;
    }
    scale = max_abs == 0.0f ? encode_e8m0_exponent(kE8m0MinExponent)
                            : encode_e8m0_exponent(floor_log2_abs(max_abs) - kFp8E4m3MaxExponent);
    return encode_fp8_e4m3_scaled(value, e8m0_exponent(scale));
}

// The value a code and its block's scale stand for, as BF16 bits: exact (an e4m3 value has 4
// significant bits, BF16 keeps 8 and has FP32's exponent range); NaN stays NaN. The scale
// 2^e is an exact float for every code, so the product rounds once, as ldexpf does, without
// ldexpf's general path for every element.
__device__ inline std::uint16_t mx_fp8_value_as_bf16(std::uint8_t code, std::uint8_t scale) {
    if (e8m0_is_nan(scale)) return 0x7FC0;
    return encode_bf16(decode_fp8_e4m3(code) * decode_e8m0(scale));
}

// Where element `element` (0..31) of block `block` of row `row` lives in an mma-layout
// activation matrix of k columns (gpu/matrix_layout.hpp).
__device__ inline std::int64_t mma_code_offset(std::int64_t row, std::int64_t block, int element,
                                               std::int64_t k) {
    return activation_pair_offset(row, block / 2, k) + (block % 2) * 8 +
           (element / 8) * kLaneBytes + fragment_byte_of(element % 8);
}

}  // namespace fhmoe::kernels::gpu
