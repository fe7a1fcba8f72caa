#pragma once

// The small CI shape of configs/untuned_fhmoe_small.csv, spelled once for every test and
// bench that needs a shape the cpu and sim backends run in well under a second.

#include <cstdint>

#include "fhmoe/family/shape.hpp"

// Not `fhmoe::testing`: inside namespace fhmoe that name would hide GoogleTest's ::testing.
namespace fhmoe::test_support {

// H 512, I 128, 16 routed experts + the shared expert's dummy row (E 17, shared id 16),
// 4 routed slots + the shared one (topk 5); SiLU, bf16, MXFP8 x MXFP4, no padding.
inline family::ShapeKey small_shape(std::int64_t token,
                                    family::GateMode gate_mode = family::GateMode::interleave) {
    family::ShapeKey shape;
    shape.token = token;
    shape.model_dim = 512;
    shape.inter_dim = 128;
    shape.expert = 17;
    shape.topk = 5;
    shape.shared_expert_id = 16;
    shape.gate_mode = gate_mode;
    return shape;
}

}  // namespace fhmoe::test_support
