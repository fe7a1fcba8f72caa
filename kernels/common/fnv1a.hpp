#pragma once

// FNV-1a 64-bit over explicit little-endian bytes: a stable fingerprint of data (identical on
// every machine whatever its endianness), used for problem and reference digests.

#include <cstdint>

#include "common/host_device.hpp"

namespace fhmoe::kernels {

class Fnv1a64 {
public:
    FHMOE_HOST_DEVICE void add_byte(std::uint8_t byte) {
        state_ = (state_ ^ byte) * 0x100000001B3ull;
    }
    FHMOE_HOST_DEVICE void add_u32(std::uint32_t word) {
        for (int shift = 0; shift < 32; shift += 8) {
            add_byte(static_cast<std::uint8_t>(word >> shift));
        }
    }
    FHMOE_HOST_DEVICE void add_u64(std::uint64_t word) {
        for (int shift = 0; shift < 64; shift += 8) {
            add_byte(static_cast<std::uint8_t>(word >> shift));
        }
    }
    FHMOE_HOST_DEVICE std::uint64_t value() const { return state_; }

private:
    std::uint64_t state_ = 0xCBF29CE484222325ull;
};

}  // namespace fhmoe::kernels
