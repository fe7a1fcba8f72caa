#pragma once

// Exact access to the bits of an fp32 value, and exact powers of two built from bits, so
// that every format conversion is integer arithmetic (bit-identical on every machine) rather
// than a libm call whose last bit can differ between standard libraries.

#include <cstdint>

#include "common/host_device.hpp"

#if !FHMOE_DEVICE_PASS
#include <bit>
#endif

namespace fhmoe::kernels {

FHMOE_HOST_DEVICE inline std::uint32_t float_to_bits(float value) {
#if FHMOE_DEVICE_PASS
    return __float_as_uint(value);
#else
    return std::bit_cast<std::uint32_t>(value);
#endif
}

FHMOE_HOST_DEVICE inline float bits_to_float(std::uint32_t bits) {
#if FHMOE_DEVICE_PASS
    return __uint_as_float(bits);
#else
    return std::bit_cast<float>(bits);
#endif
}

inline constexpr std::uint32_t kFp32SignMask = 0x80000000u;
inline constexpr std::uint32_t kFp32AbsMask = 0x7FFFFFFFu;
inline constexpr std::uint32_t kFp32InfinityBits = 0x7F800000u;
inline constexpr std::uint32_t kFp32QuietNanBits = 0x7FC00000u;

FHMOE_HOST_DEVICE inline bool is_nan_bits(std::uint32_t bits) {
    return (bits & kFp32AbsMask) > kFp32InfinityBits;
}

FHMOE_HOST_DEVICE inline bool is_finite_bits(std::uint32_t bits) {
    return (bits & kFp32AbsMask) < kFp32InfinityBits;
}

// 2^exponent, exact for every exponent fp32 can represent (subnormals included); 0 below
// 2^-149 and +inf above 2^127.
FHMOE_HOST_DEVICE inline float exact_pow2(int exponent) {
    if (exponent > 127) return bits_to_float(kFp32InfinityBits);
    if (exponent >= -126) return bits_to_float(static_cast<std::uint32_t>(exponent + 127) << 23);
    if (exponent >= -149) return bits_to_float(1u << (exponent + 149));
    return 0.0f;
}

// floor(log2(|value|)) for a finite value, exact (fp32 subnormals included); -150 for zero,
// one below the smallest subnormal, so zero orders below every nonzero value.
FHMOE_HOST_DEVICE inline int floor_log2_abs(float value) {
    const std::uint32_t abs_bits = float_to_bits(value) & kFp32AbsMask;
    if (abs_bits == 0) return -150;
    const int biased_exponent = static_cast<int>(abs_bits >> 23);
    if (biased_exponent != 0) return biased_exponent - 127;
    int exponent = -127;
    for (std::uint32_t mantissa = abs_bits; (mantissa & 0x00400000u) == 0; mantissa <<= 1) {
        --exponent;
    }
    return exponent;
}

}  // namespace fhmoe::kernels
