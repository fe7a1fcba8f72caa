#pragma once

// Counter-based random bits: word i of stream s is a pure function of (seed, s, i) through
// the SplitMix64 finalizer. Nothing depends on the standard library's distributions (which
// differ between implementations) or on the order values are drawn in, so every rank builds
// the same bytes, and a tensor can later be generated in parallel.

#include <cstdint>

namespace fhmoe::kernels {

inline constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// One independent stream per tensor, so adding a tensor never shifts another's values.
enum class RandomStream : std::uint64_t {
    activations = 1,
    routing_ids = 2,
    routing_scores = 3,
    w1_codes = 4,
    w1_scales = 5,
    w2_codes = 6,
    w2_scales = 7,
    shared_w1_values = 8,
    shared_w1_block_scales = 9,
    shared_w2_values = 10,
    shared_w2_block_scales = 11,
};

class CounterRandom {
public:
    CounterRandom(std::uint64_t seed, RandomStream stream)
        : key_(splitmix64_mix(seed ^ splitmix64_mix(static_cast<std::uint64_t>(stream)))) {}

    std::uint64_t word(std::uint64_t index) const {
        return splitmix64_mix(key_ + index * 0xD1B54A32D192ED03ull);
    }

    // Uniform in [0, 1) with 24 random bits: exactly representable in fp32.
    float unit(std::uint64_t index) const {
        return static_cast<float>(word(index) >> 40) * 0x1.0p-24f;
    }

    // Uniform-enough integer in [0, bound) (multiply-shift; bias below 2^-32 * bound).
    std::uint32_t below(std::uint64_t index, std::uint32_t bound) const {
        return static_cast<std::uint32_t>(((word(index) >> 32) * bound) >> 32);
    }

private:
    std::uint64_t key_;
};

}  // namespace fhmoe::kernels
