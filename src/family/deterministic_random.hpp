#pragma once

// SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of xoshiro): a fixed algorithm
// whose outputs are identical on every platform, unlike std:: distributions.

#include <cstdint>

namespace fhmoe::family {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next();

    // Uniform in [0, bound) by rejection (no modulo bias); bound must be > 0.
    std::uint64_t below(std::uint64_t bound);

private:
    std::uint64_t state_;
};

}  // namespace fhmoe::family
