#pragma once

// The host-side inputs of one FHMoE shape, generated from (shape, seed) identically on
// every machine (DESIGN.md section 4; aiter spec section 6.3). Layouts are row-major.
//
// Routed experts are rows 0..E-2 (MXFP4: e2m1 two per byte, low nibble = even K index, one
// e8m0 scale per 1x32 block along K). Row E-1 is the dummy row whose id is the shared
// expert: its routed weights are all zero, and the op uses the FP8 shared weights for it.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fhmoe/family/shape.hpp"

namespace fhmoe::kernels {

struct Problem {
    family::ShapeKey shape;
    std::uint64_t seed = 0;

    // Activations and routing.
    std::vector<std::uint16_t> x_bf16;   // [M, H] bf16 bits
    std::vector<std::int32_t> topk_ids;  // [M, topk]: routed ids (distinct) then E-1 last
    std::vector<float> topk_weights;     // [M, topk]

    // Routed experts. Stage1 rows are 2I: with GateMode::interleave rows alternate
    // gate/up (g0,u0,g1,u1,...); with GateMode::separated the I gate rows come first.
    std::vector<std::uint8_t> w1_fp4;    // [E, 2I, H/2]
    std::vector<std::uint8_t> w1_scale;  // [E, 2I, H/32] e8m0
    std::vector<std::uint8_t> w2_fp4;    // [E, H, I/2]
    std::vector<std::uint8_t> w2_scale;  // [E, H, I/32] e8m0

    // The shared expert (FP8 e4m3 with e8m0 per 1x32 along K), same row order as w1/w2.
    std::vector<std::uint8_t> shared_w1_fp8;    // [2I, H]
    std::vector<std::uint8_t> shared_w1_scale;  // [2I, H/32]
    std::vector<std::uint8_t> shared_w2_fp8;    // [H, I]
    std::vector<std::uint8_t> shared_w2_scale;  // [H, I/32]

    // Total bytes held by the vectors above.
    std::size_t bytes() const;
};

// Builds every input from (shape, seed): bf16 activations, topk-1 distinct routed ids per
// token plus the shared expert id last, routing weights, weights with real, varied e8m0
// scales (never all ones). Throws fhmoe::Error on a shape the family
// cannot represent (K not a multiple of 32, shared_expert_id != E-1, topk < 2 ...).
Problem generate_problem(const family::ShapeKey& shape, std::uint64_t seed);

// Whether two shapes' problems have the same weights for one seed: generate_problem draws the
// weights from the seed and the model alone, so shapes that differ only in their token count
// share them (a model's weights are the same whatever the batch).
bool shares_weights(const family::ShapeKey& a, const family::ShapeKey& b);

// Makes `problem` generate_problem(shape, problem.seed) by drawing only what depends on the
// token count (activations and routing) and keeping its weights: a worker tuning a model's
// token counts one after another draws the model's weights once. Throws fhmoe::Error when
// `shape` is invalid or does not share weights with problem.shape.
void generate_token_inputs(Problem& problem, const family::ShapeKey& shape);

// Throws fhmoe::Error naming the first field of `shape` this op cannot represent.
void validate_shape(const family::ShapeKey& shape);

// Throws fhmoe::Error when a tensor's size does not match problem.shape or a routing id is
// out of [0, E) (a hand-built or corrupted problem), after validate_shape.
void validate_problem(const Problem& problem);

// A stable 64-bit fingerprint (FNV-1a) of every input byte, identical on every machine: ranks
// compare it to prove they hold the same data.
std::uint64_t problem_digest(const Problem& problem);

}  // namespace fhmoe::kernels
