#pragma once

// Round-to-nearest-even from fp32 to a small float format without infinities (OCP FP8
// e4m3fn, FP4 e2m1), done on integers: the fp32 significand is shifted to the target
// format's quantum and rounded by its remainder, so ties go to the even code exactly and no
// intermediate fp32 operation (which could itself round or underflow) is involved.

#include <cstdint>

#include "common/float_bits.hpp"
#include "common/host_device.hpp"

namespace fhmoe::kernels {

struct MinifloatLayout {
    int mantissa_bits;            // stored fraction bits
    int exponent_bias;            // value = 2^(field - bias) * 1.m for field > 0
    std::uint32_t max_magnitude;  // largest finite code without the sign bit (saturation)
};

// The magnitude code (sign bit excluded) nearest to |value| * 2^-scale_exponent, ties to
// even, saturating to layout.max_magnitude (infinities included). The caller handles NaN and
// the sign. scale_exponent lets MX quantization divide by its shared scale exactly.
FHMOE_HOST_DEVICE inline std::uint32_t round_to_minifloat_magnitude(float value, int scale_exponent,
                                                                    MinifloatLayout layout) {
    const std::uint32_t abs_bits = float_to_bits(value) & kFp32AbsMask;
    if (abs_bits == 0) return 0;
    if (abs_bits >= kFp32InfinityBits) return layout.max_magnitude;

    // value = significand * 2^(exponent - 23) with significand in [2^23, 2^24).
    std::uint32_t significand = abs_bits & 0x007FFFFFu;
    int exponent = static_cast<int>(abs_bits >> 23) - 127;
    if ((abs_bits >> 23) == 0) {
        exponent = -126;
        while ((significand & 0x00800000u) == 0) {
            significand <<= 1;
            --exponent;
        }
    } else {
        significand |= 0x00800000u;
    }
    exponent -= scale_exponent;

    const int min_normal_exponent = 1 - layout.exponent_bias;
    const int target_exponent = exponent < min_normal_exponent ? min_normal_exponent : exponent;
    int quantum_exponent = target_exponent - layout.mantissa_bits;
    // >= 23 - mantissa_bits > 0: the significand always loses bits.
    const int shift = quantum_exponent - (exponent - 23);
    // value < 2^(exponent+1) <= quantum/2 from here on: rounds to zero.
    if (shift >= 25) return 0;

    std::uint32_t quanta = significand >> shift;
    const std::uint32_t remainder = significand & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1);
    if (remainder > half || (remainder == half && (quanta & 1u) != 0)) ++quanta;

    const std::uint32_t implicit_one = 1u << layout.mantissa_bits;
    // Subnormal: only reachable at the minimum exponent, where the field is 0.
    if (quanta < implicit_one) return quanta;
    // Rounding carried into the next binade.
    if (quanta == 2 * implicit_one) {
        quanta = implicit_one;
        ++quantum_exponent;
    }
    const int field = quantum_exponent + layout.mantissa_bits + layout.exponent_bias;
    const int max_field = static_cast<int>(layout.max_magnitude >> layout.mantissa_bits);
    if (field > max_field) return layout.max_magnitude;
    const std::uint32_t code =
        (static_cast<std::uint32_t>(field) << layout.mantissa_bits) | (quanta - implicit_one);
    return code > layout.max_magnitude ? layout.max_magnitude : code;
}

}  // namespace fhmoe::kernels
