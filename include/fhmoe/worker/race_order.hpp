#pragma once

// The order contenders run in within one race round, shared by the worker (which runs it)
// and the supervisor (which must know who was in flight when a worker died).

#include <cstdint>
#include <vector>

namespace fhmoe::worker {

// Positions 0..total-1 rotated left by round: round 0 runs 0,1,2; round 1 runs 1,2,0; ...
inline std::vector<std::uint32_t> race_order(std::uint32_t total, std::uint32_t round) {
    std::vector<std::uint32_t> order;
    order.reserve(total);
    for (std::uint32_t i = 0; i < total; ++i) order.push_back((i + round) % total);
    return order;
}

}  // namespace fhmoe::worker
