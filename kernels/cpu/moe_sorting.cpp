#include "cpu/moe_sorting.hpp"

#include <algorithm>

namespace fhmoe::kernels {

SortedRouting::SortedRouting(const ProblemDims& dims, int block_size)
    : block_m(block_size),
      sorted_ids(static_cast<std::size_t>(dims.slot_rows() + dims.experts * block_size)),
      sorted_weights(sorted_ids.size()),
      block_experts(sorted_ids.size() / static_cast<std::size_t>(block_size) + 1),
      expert_rows(static_cast<std::size_t>(dims.experts)) {}

std::size_t SortedRouting::bytes() const {
    return sorted_ids.size() * sizeof(std::int32_t) + sorted_weights.size() * sizeof(float) +
           block_experts.size() * sizeof(std::int32_t) + expert_rows.size() * sizeof(std::int64_t);
}

void sort_tokens_by_expert(const Problem& problem, SortedRouting& routing) {
    const ProblemDims dims(problem.shape);
    const std::int64_t block_m = routing.block_m;
    std::fill(routing.expert_rows.begin(), routing.expert_rows.end(), 0);
    for (std::int32_t expert : problem.topk_ids)
        ++routing.expert_rows[static_cast<std::size_t>(expert)];

    // Turn counts into each expert's first padded row, writing block owners and padding.
    std::int64_t row = 0;
    for (std::int64_t expert = 0; expert < dims.experts; ++expert) {
        const std::int64_t count = routing.expert_rows[static_cast<std::size_t>(expert)];
        const std::int64_t padded = (count + block_m - 1) / block_m * block_m;
        for (std::int64_t block = row / block_m; block < (row + padded) / block_m; ++block) {
            routing.block_experts[static_cast<std::size_t>(block)] =
                static_cast<std::int32_t>(expert);
        }
        for (std::int64_t pad = row + count; pad < row + padded; ++pad) {
            routing.sorted_ids[static_cast<std::size_t>(pad)] =
                static_cast<std::int32_t>(dims.tokens);
            routing.sorted_weights[static_cast<std::size_t>(pad)] = 0.0f;
        }
        routing.expert_rows[static_cast<std::size_t>(expert)] = row;
        row += padded;
    }
    routing.valid_rows = row;

    for (std::int64_t token = 0; token < dims.tokens; ++token) {
        for (std::int64_t slot = 0; slot < dims.topk; ++slot) {
            const auto index = static_cast<std::size_t>(token * dims.topk + slot);
            auto& next = routing.expert_rows[static_cast<std::size_t>(problem.topk_ids[index])];
            routing.sorted_ids[static_cast<std::size_t>(next)] =
                static_cast<std::int32_t>(token | (slot << kSortedSlotShift));
            routing.sorted_weights[static_cast<std::size_t>(next)] = problem.topk_weights[index];
            ++next;
        }
    }
}

}  // namespace fhmoe::kernels
