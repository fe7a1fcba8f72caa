#pragma once

// The shapes the project ships (configs/untuned_fhmoe.csv holds the same list): DeepSeek-V4
// routed MoE with inter_dim 384 (spec section 6.3) at the token counts aiter's tuned file
// covers.

#include <cstdint>
#include <vector>

#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

// H 7168, I 384, E 385 (384 routed + the dummy row of the shared expert 384), topk 7 (6
// routed + shared), SiLU, bf16, MXFP8 activations, MXFP4 weights, per_1x32, no padding.
ShapeKey dsv4_i384_shape(std::int64_t token, GateMode gate_mode = GateMode::interleave);

// Tokens 1, 2, 4, ..., 2048, INTERLEAVE: the twelve rows of aiter's tuned_fhmoe.csv.
std::vector<ShapeKey> dsv4_i384_shapes();

}  // namespace fhmoe::family
