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

#if defined(FHMOE_GPU_VENDOR_NVIDIA)
#include <cuda_fp8.h>
#endif

namespace fhmoe::kernels::gpu {

// The e4m3 code of value * 2^-scale_exponent: encode_fp8_e4m3_scaled's result (round to
// nearest even, saturating to +-448, NaN to 0x7F with the sign). On NVIDIA the hardware
// conversion does the rounding (cvt.rn.satfinite.e4m3x2.f32, the same rule) after an exact
// multiplication by the power of two: one instruction where the integer rounding took ~100
// per element (the x quantization's limit at 2048 DSV4 tokens). A product below 2^-126 may
// lose bits as an fp32 subnormal, but anything that small rounds to zero in e4m3 either way;
// the scale exponents MX produces (floor(log2 max) - 8 >= -127) keep 2^-e a normal float.
// tests/gpu/gpu_quantizer_test.cpp checks both device quantizers bit for bit.
__device__ inline std::uint8_t encode_mx_fp8_element(float value, int scale_exponent) {
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
    const std::uint32_t bits = float_to_bits(value);
    if (!is_nan_bits(bits) && scale_exponent >= -126 && scale_exponent <= 126) {
        const float scaled =
            value * bits_to_float(static_cast<std::uint32_t>(127 - scale_exponent) << 23);
        return static_cast<std::uint8_t>(__nv_cvt_float_to_fp8(scaled, __NV_SATFINITE, __NV_E4M3));
    }
#endif
    return encode_fp8_e4m3_scaled(value, scale_exponent);
}

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
    return encode_mx_fp8_element(value, e8m0_exponent(scale));
}

// The value a code and its block's scale stand for, as BF16 bits: exact (an e4m3 value has 4
// significant bits, BF16 keeps 8 and has FP32's exponent range); NaN stays NaN. The scale
// 2^e is an exact float for every code, so the product rounds once, as ldexpf does, without
// ldexpf's general path for every element.
__device__ inline std::uint16_t mx_fp8_value_as_bf16(std::uint8_t code, std::uint8_t scale) {
    if (e8m0_is_nan(scale)) return 0x7FC0;
    return encode_bf16(decode_fp8_e4m3(code) * decode_e8m0(scale));
}

}  // namespace fhmoe::kernels::gpu
