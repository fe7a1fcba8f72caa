#pragma once

// What the cpu backend can honour: every tile must tile its dimension exactly (no silent
// substitute tile, unlike aiter's runtime overrides, spec 6.5), K steps and slices must be
// whole MX scale blocks, and thread counts are bounded.

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::kernels {

// Throws UnsupportedCandidate naming the first field the cpu backend cannot honour.
void check_cpu_candidate(const family::ShapeKey& shape, const family::Candidate& candidate);

}  // namespace fhmoe::kernels
