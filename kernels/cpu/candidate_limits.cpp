#include "cpu/candidate_limits.hpp"

#include <string>

#include "common/mx_block.hpp"
#include "fhmoe/kernels/cpu_op.hpp"

namespace fhmoe::kernels {
namespace {

constexpr int kMaxBlockM = 256;
constexpr int kMaxTile = 4096;

[[noreturn]] void unsupported(const std::string& reason) {
    throw UnsupportedCandidate("cpu backend cannot run this candidate: " + reason);
}

void require_between(const char* field, int value, int low, int high) {
    if (value < low || value > high) {
        unsupported(std::string(field) + " " + std::to_string(value) + " is outside [" +
                    std::to_string(low) + ", " + std::to_string(high) + "]");
    }
}

void require_divides(const char* field, int value, const char* dimension, std::int64_t size) {
    if (size % value != 0) {
        unsupported(std::string(field) + " " + std::to_string(value) + " does not divide " +
                    dimension + " " + std::to_string(size));
    }
}

void require_scale_blocks(const char* field, int value) {
    if (value % kMxBlockSize != 0) {
        unsupported(std::string(field) + " " + std::to_string(value) +
                    " is not a multiple of the 32-wide MX scale block");
    }
}

}  // namespace

void check_cpu_candidate(const family::ShapeKey& shape, const family::Candidate& candidate) {
    const family::Stage1Config& s1 = candidate.stage1;
    const family::Stage2Config& s2 = candidate.stage2;
    require_between("block_m", candidate.block_m, 1, kMaxBlockM);

    require_between("stage1.tile_m", s1.tile_m, 1, kMaxBlockM);
    require_divides("stage1.tile_m", s1.tile_m, "block_m", candidate.block_m);
    require_between("stage1.tile_n", s1.tile_n, kMxBlockSize, kMaxTile);
    // Whole scale blocks, so the fused epilogue quantizes complete 1x32 blocks of h.
    require_scale_blocks("stage1.tile_n", s1.tile_n);
    require_divides("stage1.tile_n", s1.tile_n, "inter_dim", shape.inter_dim);
    require_between("stage1.tile_k", s1.tile_k, kMxBlockSize, kMaxTile);
    require_scale_blocks("stage1.tile_k", s1.tile_k);
    require_divides("stage1.tile_k", s1.tile_k, "model_dim", shape.model_dim);
    require_between("stage1.waves", s1.waves, 1, kMaxCpuWavesPerTile);
    require_divides("stage1.waves", s1.waves, "stage1.tile_n", s1.tile_n);
    require_between("stage1.k_waves", s1.k_waves, 1, kMaxCpuWavesPerTile);
    require_divides("stage1.k_waves", s1.k_waves, "the scale blocks of stage1.tile_k",
                    s1.tile_k / kMxBlockSize);
    if (s1.gate_mode != shape.gate_mode) {
        unsupported(std::string("stage1.gate_mode ") +
                    std::string(family::to_aiter_string(s1.gate_mode)) + " is not the shape's " +
                    std::string(family::to_aiter_string(shape.gate_mode)));
    }

    require_between("stage2.tile_m", s2.tile_m, 1, kMaxBlockM);
    require_divides("stage2.tile_m", s2.tile_m, "block_m", candidate.block_m);
    require_between("stage2.tile_n", s2.tile_n, 1, kMaxTile);
    require_divides("stage2.tile_n", s2.tile_n, "model_dim", shape.model_dim);
    require_between("stage2.tile_k", s2.tile_k, kMxBlockSize, kMaxTile);
    require_scale_blocks("stage2.tile_k", s2.tile_k);
    require_divides("stage2.tile_k", s2.tile_k, "inter_dim", shape.inter_dim);
}

}  // namespace fhmoe::kernels
