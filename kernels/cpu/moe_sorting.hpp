#pragma once

// moe_sorting as serving runs it (spec 6.3 step 2): the (token, slot) pairs of each expert,
// in expert order and token order within an expert, padded to a multiple of block_m rows so
// that every block of block_m rows belongs to one expert. An entry packs the token in the
// low 24 bits and the slot in bits 24-31; padding rows carry token = M and weight 0.

#include <cstdint>
#include <vector>

#include "fhmoe/kernels/problem.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {

inline constexpr std::uint32_t kSortedTokenMask = 0x00FFFFFFu;
inline constexpr int kSortedSlotShift = 24;

inline std::int64_t sorted_token(std::int32_t entry) {
    return static_cast<std::int64_t>(static_cast<std::uint32_t>(entry) & kSortedTokenMask);
}
inline std::int64_t sorted_slot(std::int32_t entry) {
    return static_cast<std::int64_t>(static_cast<std::uint32_t>(entry) >> kSortedSlotShift);
}

// Buffers sized once for the worst case (every expert used, each padded by block_m - 1).
struct SortedRouting {
    SortedRouting(const ProblemDims& dims, int block_m);

    int block_m;
    std::vector<std::int32_t> sorted_ids;     // [capacity rows]
    std::vector<float> sorted_weights;        // [capacity rows]
    std::vector<std::int32_t> block_experts;  // [capacity rows / block_m]
    std::vector<std::int64_t> expert_rows;    // [E] scratch: slots per expert
    std::int64_t valid_rows = 0;              // padded rows in use (aiter's num_valid_ids)

    std::size_t bytes() const;
};

void sort_tokens_by_expert(const Problem& problem, SortedRouting& routing);

}  // namespace fhmoe::kernels
