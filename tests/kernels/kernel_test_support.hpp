#pragma once

// Shapes and candidates the kernels tests share. Candidates are spelled out here rather
// than taken from the family catalogue, so these tests pin the backend, not the catalogue.

#include <cstdint>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/kernels/cpu_op.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "support/small_shape.hpp"

namespace fhmoe::kernels::testing {

// DESIGN.md section 3's default errRatio.
inline constexpr double kErrRatio = 0.05;

// The small CI shape at H=256 instead of 512: half the work per token for these tests.
inline family::ShapeKey small_shape(std::int64_t tokens, family::GateMode gate_mode) {
    family::ShapeKey shape = test_support::small_shape(tokens, gate_mode);
    shape.model_dim = 256;
    return shape;
}

inline family::Candidate basic_candidate(family::GateMode gate_mode) {
    family::Candidate candidate;
    candidate.block_m = 32;
    candidate.stage1 = {32, 64, 128, 1, 1, gate_mode, false};
    candidate.stage2 = {32, 128, 128, family::Stage2Mode::atomic, false};
    return candidate;
}

inline std::vector<std::uint16_t> run_cpu_op(const Problem& problem,
                                             const family::Candidate& candidate,
                                             const CpuOpOptions& options = {}) {
    CpuFhmoeOp op(problem.shape, candidate, options);
    std::vector<std::uint16_t> out(
        static_cast<std::size_t>(problem.shape.token * problem.shape.model_dim));
    op.run(problem, out);
    return out;
}

}  // namespace fhmoe::kernels::testing
