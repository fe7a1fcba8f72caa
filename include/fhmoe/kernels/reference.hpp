#pragma once

// The oracle: the FHMoE op in plain loops with fp32 accumulation over dequantized values.
// Every backend's output is checked against it.

#include <cstdint>
#include <vector>

#include "fhmoe/kernels/problem.hpp"

namespace fhmoe::kernels {

struct ReferenceOutput {
    std::vector<float> out;    // [M, H] fp32
    std::uint64_t digest = 0;  // stable hash of `out` (bit pattern), identical on every rank
};

ReferenceOutput compute_reference(const Problem& problem);

}  // namespace fhmoe::kernels
