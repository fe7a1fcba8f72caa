#pragma once

// OCP Microscaling (MX v1.0) quantization of one 1x32 block: a shared E8M0 scale plus 32
// elements. The shared exponent is floor(log2(max|x|)) - emax_elem (emax_elem = 8 for e4m3,
// 2 for e2m1), clamped to E8M0's range; each element is round(x / 2^shared) to nearest even,
// saturating to the element format's maximum (the largest element of a block can exceed it
// by up to 2x, by design of the spec). A block containing NaN or an infinity gets the NaN
// scale 0xFF; an all-zero block gets the smallest scale 2^-127 and zero elements.

#include <cstdint>

#include "common/e8m0.hpp"
#include "common/float_bits.hpp"
#include "common/fp4_e2m1.hpp"
#include "common/fp8_e4m3.hpp"
#include "common/host_device.hpp"

namespace fhmoe::kernels {

inline constexpr int kMxBlockSize = 32;

// The E8M0 code of a block's shared scale, given the element format's emax.
FHMOE_HOST_DEVICE inline std::uint8_t mx_shared_scale(const float* values,
                                                      int element_max_exponent) {
    float max_abs = 0.0f;
    for (int i = 0; i < kMxBlockSize; ++i) {
        const std::uint32_t bits = float_to_bits(values[i]);
        if (!is_finite_bits(bits)) return kE8m0NanCode;
        const float magnitude = bits_to_float(bits & kFp32AbsMask);
        if (magnitude > max_abs) max_abs = magnitude;
    }
    if (max_abs == 0.0f) return encode_e8m0_exponent(kE8m0MinExponent);
    return encode_e8m0_exponent(floor_log2_abs(max_abs) - element_max_exponent);
}

// Quantizes 32 values to e4m3 codes; returns the E8M0 scale code.
FHMOE_HOST_DEVICE inline std::uint8_t quantize_mx_block_fp8(const float* values,
                                                            std::uint8_t* codes) {
    const std::uint8_t scale = mx_shared_scale(values, kFp8E4m3MaxExponent);
    const int scale_exponent = e8m0_exponent(scale);
    for (int i = 0; i < kMxBlockSize; ++i) {
        codes[i] = e8m0_is_nan(scale) ? kFp8E4m3NanCode
                                      : encode_fp8_e4m3_scaled(values[i], scale_exponent);
    }
    return scale;
}

// Quantizes 32 values to 16 packed fp4x2 bytes (low nibble = even element); returns the
// E8M0 scale code.
FHMOE_HOST_DEVICE inline std::uint8_t quantize_mx_block_fp4(const float* values,
                                                            std::uint8_t* packed) {
    const std::uint8_t scale = mx_shared_scale(values, kFp4E2m1MaxExponent);
    const int scale_exponent = e8m0_is_nan(scale) ? 0 : e8m0_exponent(scale);
    for (int i = 0; i < kMxBlockSize; i += 2) {
        packed[i / 2] = pack_fp4x2(encode_fp4_e2m1_scaled(values[i], scale_exponent),
                                   encode_fp4_e2m1_scaled(values[i + 1], scale_exponent));
    }
    return scale;
}

FHMOE_HOST_DEVICE inline void dequantize_mx_block_fp8(const std::uint8_t* codes, std::uint8_t scale,
                                                      float* values) {
    const float scale_value = decode_e8m0(scale);
    for (int i = 0; i < kMxBlockSize; ++i) values[i] = decode_fp8_e4m3(codes[i]) * scale_value;
}

FHMOE_HOST_DEVICE inline void dequantize_mx_block_fp4(const std::uint8_t* packed,
                                                      std::uint8_t scale, float* values) {
    const float scale_value = decode_e8m0(scale);
    for (int i = 0; i < kMxBlockSize; ++i) {
        values[i] = decode_fp4_e2m1(fp4x2_element(packed, i)) * scale_value;
    }
}

}  // namespace fhmoe::kernels
