#pragma once

// OCP FP4 E2M1: 1 sign, 2 exponent (bias 1), 1 mantissa bit. Magnitudes 0, 0.5 (the one
// subnormal), 1, 1.5, 2, 3, 4, 6; no infinities and no NaN. Encoding rounds to nearest,
// ties to even, and saturates to +-6. NaN has no code: it encodes as a signed zero, and MX
// quantization marks such a block through its NaN scale instead.
//
// Packing ("fp4x2"): two elements per byte, the element with the EVEN index in the LOW
// nibble (bits 0-3) and the odd one in the high nibble, as torch.float4_e2m1fn_x2 and the
// aiter kernels store them.

#include <cstdint>

#include "common/float_bits.hpp"
#include "common/host_device.hpp"
#include "common/minifloat_rounding.hpp"

namespace fhmoe::kernels {

inline constexpr MinifloatLayout kFp4E2m1Layout{1, 1, 0x7};
inline constexpr float kFp4E2m1Max = 6.0f;
// OCP MX: the exponent of the largest normal element, used for the shared scale.
inline constexpr int kFp4E2m1MaxExponent = 2;

FHMOE_HOST_DEVICE inline float decode_fp4_e2m1(std::uint8_t code) {
    const std::uint32_t sign = static_cast<std::uint32_t>(code & 0x8) << 28;
    const std::uint32_t field = (code >> 1) & 0x3;
    const std::uint32_t mantissa = code & 0x1;
    if (field == 0) return bits_to_float(sign | (mantissa != 0 ? float_to_bits(0.5f) : 0u));
    return bits_to_float(sign | ((field - 1 + 127) << 23) | (mantissa << 22));
}

// Encodes value * 2^-scale_exponent (exactly, without forming the product in fp32) to a
// 4-bit code in the low nibble.
FHMOE_HOST_DEVICE inline std::uint8_t encode_fp4_e2m1_scaled(float value, int scale_exponent) {
    const std::uint32_t bits = float_to_bits(value);
    const std::uint8_t sign = static_cast<std::uint8_t>((bits >> 28) & 0x8);
    if (is_nan_bits(bits)) return sign;
    return static_cast<std::uint8_t>(
        sign | round_to_minifloat_magnitude(value, scale_exponent, kFp4E2m1Layout));
}

FHMOE_HOST_DEVICE inline std::uint8_t encode_fp4_e2m1(float value) {
    return encode_fp4_e2m1_scaled(value, 0);
}

// The code of element `index` of a packed fp4x2 array (low nibble = even index).
FHMOE_HOST_DEVICE inline std::uint8_t fp4x2_element(const std::uint8_t* packed,
                                                    std::int64_t index) {
    const std::uint8_t byte = packed[index >> 1];
    return static_cast<std::uint8_t>((index & 1) == 0 ? (byte & 0x0F) : (byte >> 4));
}

FHMOE_HOST_DEVICE inline std::uint8_t pack_fp4x2(std::uint8_t even_code, std::uint8_t odd_code) {
    return static_cast<std::uint8_t>((even_code & 0x0F) | ((odd_code & 0x0F) << 4));
}

}  // namespace fhmoe::kernels
