#pragma once

// What serving runs for a shape that has no tuned row. It is always a member of the shape's
// catalogue, so a tune always measures it (catalogue_sample.hpp includes it in samples).

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

// block_m: the smallest offered block of at least 32 rows that holds the average routed
// expert group (padded_token * routed_topk / routed_experts), capped at 128.
// stage1: tile_n 128 (else 64, 32, 256: the first that divides inter_dim), tile_k 256 (else
// 128, 64), one wave, no K split, fused fp8 output (saves a quantization pass).
// stage2: tile_m = block_m, tile_n 128 (else 256, 64), tile_k 128 (else 64, 256), atomic,
// not persistent. Throws UnsupportedShape when the catalogue is empty.
Candidate default_candidate(const ShapeKey& shape);

}  // namespace fhmoe::family
