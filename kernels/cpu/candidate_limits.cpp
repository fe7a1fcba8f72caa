#include "cpu/candidate_limits.hpp"

#include "common/mx_block.hpp"
#include "fhmoe/kernels/cpu_op.hpp"
#include "problem/candidate_requirements.hpp"

namespace fhmoe::kernels {
namespace {

constexpr int kMaxBlockM = 256;
constexpr int kMaxTile = 4096;

}  // namespace

void check_cpu_candidate(const family::ShapeKey& shape, const family::Candidate& candidate) {
    const CandidateRequirements require("cpu");
    require.check_shape_fit(shape, candidate, kMaxBlockM, kMaxCpuWavesPerTile);
    // Tiles are loop bounds here: keep them to sizes the workspace is laid out for.
    require.between("stage1.tile_n", candidate.stage1.tile_n, kMxBlockSize, kMaxTile);
    require.between("stage1.tile_k", candidate.stage1.tile_k, kMxBlockSize, kMaxTile);
    require.between("stage2.tile_n", candidate.stage2.tile_n, 1, kMaxTile);
    require.between("stage2.tile_k", candidate.stage2.tile_k, kMxBlockSize, kMaxTile);
    // Each wave owns an equal slice of the tile's columns.
    require.divides("stage1.waves", candidate.stage1.waves, "stage1.tile_n",
                    candidate.stage1.tile_n);
}

}  // namespace fhmoe::kernels
