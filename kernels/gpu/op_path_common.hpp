#pragma once

// What both op paths (matrix_op_path.hpp, scalar_op_path.hpp) size and describe the same way
// (host side of the device TUs).

#include <cstddef>
#include <cstdint>

#include "gpu/device_buffer.hpp"
#include "gpu/routing_kernels.hpp"
#include "gpu/stage_args.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels::gpu {

inline std::size_t element_count(std::int64_t n) { return static_cast<std::size_t>(n); }

inline ShapeView shape_view_of(const ProblemDims& dims) {
    return {dims.tokens, dims.hidden, dims.inter, dims.topk, dims.shared_expert};
}

// The sorted routing both paths' stage kernels read (moe_sorting's output), sized for `rows`
// sorted rows.
struct SortedRouting {
    SortedRouting(std::int64_t rows, int block, std::int64_t experts)
        : sorted_ids(element_count(rows)),
          sorted_weights(element_count(rows)),
          block_experts(element_count(rows / block + 1)),
          valid_rows(1),
          expert_rows(element_count(experts)),
          block_m(block) {}

    SortedView view() const {
        return {sorted_ids.data(), sorted_weights.data(), block_experts.data(), valid_rows.data(),
                block_m};
    }
    SortBuffers buffers() const {
        return {sorted_ids.data(), sorted_weights.data(), block_experts.data(), valid_rows.data(),
                expert_rows.data()};
    }
    std::size_t bytes() const {
        return sorted_ids.bytes() + sorted_weights.bytes() + block_experts.bytes() +
               valid_rows.bytes() + expert_rows.bytes();
    }

    DeviceBuffer<std::int32_t> sorted_ids;
    DeviceBuffer<float> sorted_weights;
    DeviceBuffer<std::int32_t> block_experts;
    DeviceBuffer<std::int32_t> valid_rows;
    DeviceBuffer<std::int32_t> expert_rows;  // scratch of the three-launch sort
    int block_m;
};

}  // namespace fhmoe::kernels::gpu
