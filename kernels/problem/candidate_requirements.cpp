#include "problem/candidate_requirements.hpp"

#include <algorithm>

#include "common/mx_block.hpp"
#include "fhmoe/kernels/unsupported_candidate.hpp"

namespace fhmoe::kernels {

void CandidateRequirements::fail(const std::string& reason) const {
    throw UnsupportedCandidate(backend_ + " backend cannot run this candidate: " + reason);
}

void CandidateRequirements::between(const char* field, int value, int low, int high) const {
    if (value < low || value > high) {
        fail(std::string(field) + " " + std::to_string(value) + " is outside [" +
             std::to_string(low) + ", " + std::to_string(high) + "]");
    }
}

void CandidateRequirements::divides(const char* field, int value, const char* dimension,
                                    std::int64_t size) const {
    if (value <= 0 || size % value != 0) {
        fail(std::string(field) + " " + std::to_string(value) + " does not divide " + dimension +
             " " + std::to_string(size));
    }
}

void CandidateRequirements::whole_scale_blocks(const char* field, int value) const {
    if (value % kMxBlockSize != 0) {
        fail(std::string(field) + " " + std::to_string(value) +
             " is not a multiple of the 32-wide MX scale block");
    }
}

void CandidateRequirements::check_shape_fit(const family::ShapeKey& shape,
                                            const family::Candidate& candidate, int max_block_m,
                                            int max_waves) const {
    const family::Stage1Config& s1 = candidate.stage1;
    const family::Stage2Config& s2 = candidate.stage2;
    between("block_m", candidate.block_m, 1, max_block_m);

    between("stage1.tile_m", s1.tile_m, 1, max_block_m);
    divides("stage1.tile_m", s1.tile_m, "block_m", candidate.block_m);
    // Whole scale blocks, so the fused epilogue quantizes complete 1x32 blocks of h.
    whole_scale_blocks("stage1.tile_n", s1.tile_n);
    divides("stage1.tile_n", s1.tile_n, "inter_dim", shape.inter_dim);
    whole_scale_blocks("stage1.tile_k", s1.tile_k);
    divides("stage1.tile_k", s1.tile_k, "model_dim", shape.model_dim);
    between("stage1.waves", s1.waves, 1, max_waves);
    between("stage1.k_waves", s1.k_waves, 1, max_waves);
    divides("stage1.k_waves", s1.k_waves, "the scale blocks of stage1.tile_k",
            s1.tile_k / kMxBlockSize);
    if (s1.k_splits != 0 && shape.model_dim % s1.tile_k == 0) {
        // Each K wave of each split keeps at least one whole K step.
        const std::int64_t steps = shape.model_dim / s1.tile_k;
        between("stage1.k_splits", s1.k_splits, 1,
                static_cast<int>(std::max<std::int64_t>(1, steps / s1.k_waves)));
    }
    if (s1.gate_mode != shape.gate_mode) {
        fail(std::string("stage1.gate_mode ") + std::string(family::to_aiter_string(s1.gate_mode)) +
             " is not the shape's " + std::string(family::to_aiter_string(shape.gate_mode)));
    }

    between("stage2.tile_m", s2.tile_m, 1, max_block_m);
    divides("stage2.tile_m", s2.tile_m, "block_m", candidate.block_m);
    divides("stage2.tile_n", s2.tile_n, "model_dim", shape.model_dim);
    whole_scale_blocks("stage2.tile_k", s2.tile_k);
    divides("stage2.tile_k", s2.tile_k, "inter_dim", shape.inter_dim);
}

}  // namespace fhmoe::kernels
