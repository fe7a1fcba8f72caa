#pragma once

// Device bytes one candidate needs on one shape, for the worker's oom_preflight: a
// candidate whose estimate exceeds the free device memory is never launched.
//
// It is an estimate: it counts every buffer the op allocates (the inputs in the layout of
// kernels/problem.hpp, and the workspace of one op as serving runs it) but not allocator
// rounding, per-workgroup scratch (LDS, registers, k_waves partial sums held on chip), the
// reference output the worker keeps, or the runtime's own context.

#include <cstdint>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

struct MemoryEstimate {
    // x bf16 [M,H]; topk ids i32 and weights f32 [M,topk]; routed w1 fp4 [E,2I,H/2] with
    // e8m0 scales [E,2I,H/32]; routed w2 fp4 [E,H,I/2] with [E,H,I/32]; shared w1 fp8
    // [2I,H] with [2I,H/32]; shared w2 fp8 [H,I] with [H,I/32].
    std::uint64_t inputs = 0;
    // Sort: sorted ids and weights (M*topk + E*block_m - topk entries, 4 bytes each), one
    // expert id per block, num_valid_ids i32[2].
    std::uint64_t sort = 0;
    // MXFP8 activations [M,H] + scales [M,H/32].
    std::uint64_t quantized_input = 0;
    // Stage1 output [M*topk, I]: fused, MXFP8 + scales; otherwise bf16 plus the MXFP8 copy
    // and scales the separate quantization writes.
    std::uint64_t stage1_output = 0;
    // A fixed stage1 K split ("_ks{KS}", KS > 1): FP32 gate and up partial sums
    // [KS][sorted rows][I][2]. A derived split fills one wave of the device at most, so its
    // partials stay small and are not counted.
    std::uint64_t stage1_partials = 0;
    // Stage2: reduce mode's per-slot rows bf16 [M*topk, H]; the output bf16 [M,H].
    std::uint64_t stage2_output = 0;

    std::uint64_t workspace() const {
        return sort + quantized_input + stage1_output + stage1_partials + stage2_output;
    }
    std::uint64_t total() const { return inputs + workspace(); }
};

// Requires a supported shape (throws UnsupportedShape otherwise).
MemoryEstimate estimate_device_memory(const ShapeKey& shape, const Candidate& candidate);

std::uint64_t estimate_device_bytes(const ShapeKey& shape, const Candidate& candidate);

}  // namespace fhmoe::family
