#include "family/deterministic_random.hpp"

#include "fhmoe/error.hpp"

namespace fhmoe::family {

std::uint64_t SplitMix64::next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31U);
}

std::uint64_t SplitMix64::below(std::uint64_t bound) {
    FHMOE_CHECK(bound > 0, "SplitMix64::below needs a positive bound");
    // Values at or above the largest multiple of bound would favour small results.
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    while (true) {
        const std::uint64_t value = next();
        if (value < limit) return value % bound;
    }
}

}  // namespace fhmoe::family
