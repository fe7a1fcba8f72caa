#pragma once

// What serving runs for a shape that has no tuned row. It is always a member of the shape's
// catalogue, so a tune always measures it (catalogue_sample.hpp includes it in samples).

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

// A fixed choice per token range, good on the gpu backend's matrix kernels (measured on the
// H200, docs/performance.md), so that "tuned vs default" compares against what a careful
// engineer would ship untuned:
// block_m: the smallest offered block that holds half the average routed expert group
// (padded_token * routed_topk / routed_experts / 2): 16 rows up to 2048 DSV4 tokens, capped
// at 128.
// stage1: tile_n 64 (else 32, 128, 256: the first that divides inter_dim; on wide models'
// small token tiles 32 first), tile_k 128 (else 256, 64), four waves, one K warp, fused fp8
// output; the K split across workgroups derived by the backend, except a fixed 4 on wide
// models' small token tiles from 24 to 48 routed slots (DSV4: 4-8 tokens).
// stage2: tile_m = block_m, tile_n 128 (else 256, 64), tile_k 128 (else 64, 256), atomic,
// not persistent. Throws UnsupportedShape when the catalogue is empty.
Candidate default_candidate(const ShapeKey& shape);

}  // namespace fhmoe::family
