#pragma once

// bfloat16: the upper 16 bits of an fp32. Encoding rounds to nearest, ties to even (so a
// finite value may round up to infinity, as IEEE requires); NaN stays NaN, forced quiet, with
// its sign kept (plain truncation could turn a NaN whose payload sits in the low bits into
// infinity).

#include <cstdint>

#include "common/float_bits.hpp"
#include "common/host_device.hpp"

namespace fhmoe::kernels {

FHMOE_HOST_DEVICE inline float decode_bf16(std::uint16_t bits) {
    return bits_to_float(static_cast<std::uint32_t>(bits) << 16);
}

FHMOE_HOST_DEVICE inline std::uint16_t encode_bf16(float value) {
    const std::uint32_t bits = float_to_bits(value);
    if (is_nan_bits(bits)) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
    const std::uint32_t rounding_bias = 0x7FFFu + ((bits >> 16) & 1u);
    return static_cast<std::uint16_t>((bits + rounding_bias) >> 16);
}

}  // namespace fhmoe::kernels
