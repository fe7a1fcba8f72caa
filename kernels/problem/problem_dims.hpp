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

    // The most rows a routing sorted by expert and padded to block_m can fill: k experts in
    // use, expert e with n_e >= 1 entries, fill sum(ceil(n_e / block_m)) blocks
    // = k + sum(floor((n_e - 1) / block_m)) <= k + floor((n - k) / block_m) for n entries,
    // which grows with k, so k = min(E, n) bounds it, and a routing reaches it (min(E, n) - 1
    // experts with one entry, the rest on one). At one DSV4 token: 7 blocks (the previous
    // bound, ceil(n / block_m) + min(E, n), said 8); the stage kernels' grids and stage1's K
    // split are sized by it before the routing is known.
    std::int64_t sorted_rows_bound(std::int64_t block_m) const {
        const std::int64_t entries = slot_rows();
        const std::int64_t used = entries < experts ? entries : experts;
        return (used + (entries - used) / block_m) * block_m;
    }

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
