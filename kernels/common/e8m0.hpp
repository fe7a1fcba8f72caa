#pragma once

// OCP E8M0 scale: an unsigned biased exponent, value 2^(code - 127); 0xFF is NaN. There is
// no zero and no sign. Code 0 is 2^-127 (an fp32 subnormal), code 254 is 2^127.

#include <cstdint>

#include "common/float_bits.hpp"
#include "common/host_device.hpp"

namespace fhmoe::kernels {

inline constexpr std::uint8_t kE8m0NanCode = 0xFF;
inline constexpr int kE8m0Bias = 127;
inline constexpr int kE8m0MinExponent = -127;
inline constexpr int kE8m0MaxExponent = 127;

FHMOE_HOST_DEVICE inline bool e8m0_is_nan(std::uint8_t code) { return code == kE8m0NanCode; }

// The exponent e of the scale 2^e (meaningless for the NaN code).
FHMOE_HOST_DEVICE inline int e8m0_exponent(std::uint8_t code) {
    return static_cast<int>(code) - kE8m0Bias;
}

FHMOE_HOST_DEVICE inline float decode_e8m0(std::uint8_t code) {
    if (e8m0_is_nan(code)) return bits_to_float(kFp32QuietNanBits);
    return exact_pow2(e8m0_exponent(code));
}

// The code of 2^exponent, clamped to the representable range [-127, 127] (never NaN).
FHMOE_HOST_DEVICE inline std::uint8_t encode_e8m0_exponent(int exponent) {
    if (exponent < kE8m0MinExponent) exponent = kE8m0MinExponent;
    if (exponent > kE8m0MaxExponent) exponent = kE8m0MaxExponent;
    return static_cast<std::uint8_t>(exponent + kE8m0Bias);
}

}  // namespace fhmoe::kernels
