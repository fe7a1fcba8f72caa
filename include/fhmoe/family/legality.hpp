#pragma once

// What the FHMoE family can run, independent of backend: which shapes it implements and
// which candidates are well-formed for a shape. These are real constraints (a tile that
// does not divide its dimension would leave rows or columns uncomputed; aiter silently runs
// another tile instead, spec 6.5), not tuning preferences; the catalogue adds those.

#include <optional>
#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

// The shape is outside the family's contract (DESIGN.md section 4), or no offered tile fits
// its dimensions, so it has no candidates.
class UnsupportedShape : public Error {
public:
    using Error::Error;
};

// Why the family cannot run `shape` at all (nullopt when it can): MXFP8 activations and
// MXFP4 routed weights (the names say afp8_wfp4), per_1x32, gate/up (use_g1u1 1), routing
// weight applied in stage2, no padding, shared_expert_id == expert - 1, at least one routed
// slot and expert, model_dim and inter_dim multiples of 32 (the scale block).
std::optional<std::string> why_shape_unsupported(const ShapeKey& shape);

// Why `candidate` cannot run `shape` (nullopt when it can): stage1 tile_m == block_m;
// stage1 tile_n | inter_dim and tile_k | model_dim; k_waves splits tile_k/32; k_splits x
// k_waves <= model_dim / tile_k (K steps); stage1 gate mode == the shape's; stage2 tile_m in
// {block_m, block_m/2}; stage2 tile_n | model_dim and tile_k | inter_dim. Includes
// why_shape_unsupported.
std::optional<std::string> why_candidate_illegal(const ShapeKey& shape, const Candidate& candidate);

}  // namespace fhmoe::family
