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

// The two parts of the reference, each [M, H] fp32: the routed slots' weighted sum and the
// shared expert's weighted output. compute_reference's out is exactly routed + shared (the
// shared expert, id E-1, is accumulated last), so a backend's routed and shared paths can be
// checked in isolation.
struct ReferenceContributions {
    std::vector<float> routed;
    std::vector<float> shared;
};

ReferenceContributions compute_reference_contributions(const Problem& problem);

// The digest compute_reference uses: FNV-1a over the fp32 bit patterns, little-endian.
std::uint64_t reference_digest(const std::vector<float>& out);

}  // namespace fhmoe::kernels
