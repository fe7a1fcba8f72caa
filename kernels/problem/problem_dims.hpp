#pragma once

// The dimensions of a validated shape as the index types the loops use, so no loop
// converts ShapeKey's int64 fields on its own.

#include <cstddef>
#include <cstdint>

#include "common/mx_block.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::kernels {

struct ProblemDims {
    std::int64_t tokens;   // M
    std::int64_t hidden;   // H (model_dim), stage1 K and stage2 N
    std::int64_t inter;    // I (inter_dim), stage1 N (per gate/up half) and stage2 K
    std::int64_t experts;  // E, the last being the shared expert's dummy row
    std::int64_t topk;     // slots per token, the shared expert last
    std::int64_t shared_expert;

    explicit ProblemDims(const family::ShapeKey& shape)
        : tokens(shape.token),
          hidden(shape.model_dim),
          inter(shape.inter_dim),
          experts(shape.expert),
          topk(shape.topk),
          shared_expert(shape.shared_expert_id) {}

    std::int64_t gate_up_rows() const { return 2 * inter; }
    std::int64_t hidden_blocks() const { return hidden / kMxBlockSize; }
    std::int64_t inter_blocks() const { return inter / kMxBlockSize; }
    std::int64_t slot_rows() const { return tokens * topk; }

    std::size_t x_elements() const { return static_cast<std::size_t>(tokens * hidden); }
    std::size_t routing_elements() const { return static_cast<std::size_t>(tokens * topk); }
    std::size_t w1_bytes() const {
        return static_cast<std::size_t>(experts * gate_up_rows() * hidden / 2);
    }
    std::size_t w1_scale_bytes() const {
        return static_cast<std::size_t>(experts * gate_up_rows() * hidden_blocks());
    }
    std::size_t w2_bytes() const { return static_cast<std::size_t>(experts * hidden * inter / 2); }
    std::size_t w2_scale_bytes() const {
        return static_cast<std::size_t>(experts * hidden * inter_blocks());
    }
    std::size_t shared_w1_bytes() const {
        return static_cast<std::size_t>(gate_up_rows() * hidden);
    }
    std::size_t shared_w1_scale_bytes() const {
        return static_cast<std::size_t>(gate_up_rows() * hidden_blocks());
    }
    std::size_t shared_w2_bytes() const { return static_cast<std::size_t>(hidden * inter); }
    std::size_t shared_w2_scale_bytes() const {
        return static_cast<std::size_t>(hidden * inter_blocks());
    }
};

}  // namespace fhmoe::kernels
