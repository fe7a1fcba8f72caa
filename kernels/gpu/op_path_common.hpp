#pragma once

// What both op paths (matrix_op_path.hpp, scalar_op_path.hpp) size and describe the same way
// (host side of the device TUs).

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "gpu/stage_args.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels::gpu {

inline std::size_t element_count(std::int64_t n) { return static_cast<std::size_t>(n); }

// The most sorted rows the routing can fill: each expert in use opens at most one block_m
// block beyond its entries' own share, so valid rows <= (ceil(n / block_m) + min(E, n)) *
// block_m for n = tokens * topk entries.
inline std::int64_t sorted_rows_bound(const ProblemDims& dims, int block_m) {
    const std::int64_t entries = dims.slot_rows();
    return ((entries + block_m - 1) / block_m + std::min(dims.experts, entries)) * block_m;
}

inline ShapeView shape_view_of(const ProblemDims& dims) {
    return {dims.tokens, dims.hidden, dims.inter, dims.topk, dims.shared_expert};
}

}  // namespace fhmoe::kernels::gpu
