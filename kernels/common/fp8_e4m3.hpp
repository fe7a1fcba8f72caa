#pragma once

// OCP FP8 E4M3 "fn": 1 sign, 4 exponent (bias 7), 3 mantissa bits. No infinities; the only
// NaN codes are 0x7F and 0xFF, so the largest finite magnitude is 0x7E = 1.75 * 2^8 = 448.
// Subnormals: field 0 gives m * 2^-9. Encoding rounds to nearest, ties to even, and
// saturates out-of-range values (infinities included) to +-448 ("satfinite"), as MX
// quantization requires; NaN encodes to 0x7F with the input's sign.

#include <cstdint>

#include "common/float_bits.hpp"
#include "common/host_device.hpp"
#include "common/minifloat_rounding.hpp"

namespace fhmoe::kernels {

inline constexpr MinifloatLayout kFp8E4m3Layout{3, 7, 0x7E};
inline constexpr std::uint8_t kFp8E4m3NanCode = 0x7F;
inline constexpr std::uint8_t kFp8E4m3MaxCode = 0x7E;
inline constexpr float kFp8E4m3Max = 448.0f;
// OCP MX: the exponent of the largest normal element, used for the shared scale.
inline constexpr int kFp8E4m3MaxExponent = 8;

FHMOE_HOST_DEVICE inline bool fp8_e4m3_is_nan(std::uint8_t code) { return (code & 0x7F) == 0x7F; }

FHMOE_HOST_DEVICE inline float decode_fp8_e4m3(std::uint8_t code) {
    const std::uint32_t sign = static_cast<std::uint32_t>(code & 0x80) << 24;
    if (fp8_e4m3_is_nan(code)) return bits_to_float(sign | kFp32QuietNanBits);
    const std::uint32_t field = (code >> 3) & 0x0F;
    const std::uint32_t mantissa = code & 0x07;
    if (field == 0) {
        const float magnitude = static_cast<float>(mantissa) * exact_pow2(-9);
        return bits_to_float(sign | float_to_bits(magnitude));
    }
    return bits_to_float(sign | ((field - 7 + 127) << 23) | (mantissa << 20));
}

// Encodes value * 2^-scale_exponent (exactly, without forming the product in fp32).
FHMOE_HOST_DEVICE inline std::uint8_t encode_fp8_e4m3_scaled(float value, int scale_exponent) {
    const std::uint32_t bits = float_to_bits(value);
    const std::uint8_t sign = static_cast<std::uint8_t>((bits >> 24) & 0x80);
    if (is_nan_bits(bits)) return static_cast<std::uint8_t>(sign | kFp8E4m3NanCode);
    return static_cast<std::uint8_t>(
        sign | round_to_minifloat_magnitude(value, scale_exponent, kFp8E4m3Layout));
}

FHMOE_HOST_DEVICE inline std::uint8_t encode_fp8_e4m3(float value) {
    return encode_fp8_e4m3_scaled(value, 0);
}

}  // namespace fhmoe::kernels
