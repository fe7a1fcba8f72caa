#pragma once

// The FHMoE family's copy of the tuning policy: the shared defaults with the accuracy
// tolerances this op needs. Everything else stays the shared default.

#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::family {

// rtol = atol = 0.1 instead of aiter's generic 1e-2: the op's bf16 output comes out of an
// MXFP8 pipeline, and serving's unfused stage1 rounds h through bf16 before quantizing it,
// which moves ~3% of h codes by one fp8 step. Measured on the small shapes, a correct unfused
// kernel has up to 20% of its outputs beyond 1e-2 but 0.4% beyond 0.1, while a scale-index
// bug has ~80% beyond 0.1 (include/fhmoe/kernels/accuracy.hpp). The cosine bar (1e-3) stays,
// so direction errors are caught whatever the element-wise fraction says.
tuning::TuningPolicy fhmoe_tuning_policy();

}  // namespace fhmoe::family
