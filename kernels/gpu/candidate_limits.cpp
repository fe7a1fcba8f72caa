// What the gpu backend can honour. Like the cpu backend, no silent substitute tile (unlike
// aiter's runtime overrides, spec 6.5): a tile that does not divide its dimension, a block
// over the device's thread limit or a shared-memory footprint over its limit is unsupported.
// The NVIDIA build checks the matrix path's limits (gpu/matrix_args.hpp), the AMD build the
// scalar kernels'.

#include <algorithm>
#include <string>

#include "common/mx_block.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/portability.hpp"
#include "problem/candidate_requirements.hpp"
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
#include "gpu/matrix_args.hpp"
#include "gpu/matrix_weights.hpp"
#else
#include "gpu/launch_plan.hpp"
#endif

namespace fhmoe::kernels {
namespace {

constexpr int kMaxBlockM = 256;
constexpr int kMaxWaves = 8;

void require_shared_bytes(const CandidateRequirements& require, const char* stage, int bytes,
                          const gpu::GpuDeviceFacts& device) {
    if (static_cast<std::uint64_t>(bytes) > device.shared_bytes_per_block) {
        require.fail(std::string(stage) + " needs " + std::to_string(bytes) +
                     " bytes of shared memory per workgroup, the device allows " +
                     std::to_string(device.shared_bytes_per_block));
    }
}

#if defined(FHMOE_GPU_VENDOR_NVIDIA)

bool one_of(int value, std::initializer_list<int> allowed) {
    return std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// The matrix path: token tiles of 16..128 rows (whole groups of the instruction's 8 tokens),
// K steps of 1, 2 or 4 pairs of scale blocks, weight tiles of 16 rows shared evenly by the
// warps, at most 16 warps per stage1 workgroup.
void check_matrix_candidate(const CandidateRequirements& require, const family::ShapeKey& shape,
                            const family::Candidate& c, const gpu::GpuDeviceFacts& device) {
    if (!gpu::matrix_layout_fits(shape)) {
        require.fail("model_dim " + std::to_string(shape.model_dim) + " and inter_dim " +
                     std::to_string(shape.inter_dim) +
                     " must be multiples of 64 for the matrix kernels");
    }
    const family::Stage1Config& s1 = c.stage1;
    const family::Stage2Config& s2 = c.stage2;
    if (!one_of(s1.tile_m, {16, 32, 64, 128})) {
        require.fail("stage1.tile_m " + std::to_string(s1.tile_m) +
                     " is not one of 16, 32, 64, 128 (token groups of 8)");
    }
    if (!one_of(s2.tile_m, {16, 32, 64, 128})) {
        require.fail("stage2.tile_m " + std::to_string(s2.tile_m) +
                     " is not one of 16, 32, 64, 128 (token groups of 8)");
    }
    if (!one_of(s1.tile_k, {64, 128, 256})) {
        require.fail("stage1.tile_k " + std::to_string(s1.tile_k) + " is not one of 64, 128, 256");
    }
    if (!one_of(s2.tile_k, {64, 128, 256})) {
        require.fail("stage2.tile_k " + std::to_string(s2.tile_k) + " is not one of 64, 128, 256");
    }
    const int stage1_weight_tiles = s1.tile_n / 8;
    if (s1.tile_n % (s1.fused_fp8_out ? kMxBlockSize : 8) != 0 ||
        stage1_weight_tiles % s1.waves != 0) {
        require.fail("stage1.tile_n " + std::to_string(s1.tile_n) + " does not split into " +
                     std::to_string(s1.waves) + " waves of 8-column weight tiles" +
                     (s1.fused_fp8_out ? " in whole 32-column scale blocks" : ""));
    }
    if (s1.k_splits > gpu::kMatrixMaxKSplits) {
        require.fail("stage1.k_splits " + std::to_string(s1.k_splits) + " is above " +
                     std::to_string(gpu::kMatrixMaxKSplits));
    }
    const int threads = s1.waves * s1.k_waves * 32;
    if (threads > std::min(16 * 32, device.max_threads_per_block)) {
        require.fail("stage1 needs " + std::to_string(threads) + " threads per workgroup");
    }
    const int stage2_weight_tiles = s2.tile_n / 16;
    if (s2.tile_n % 16 != 0 ||
        (stage2_weight_tiles < gpu::kMatrixStage2Warps
             ? gpu::kMatrixStage2Warps % std::max(stage2_weight_tiles, 1) != 0
             : stage2_weight_tiles % gpu::kMatrixStage2Warps != 0)) {
        require.fail("stage2.tile_n " + std::to_string(s2.tile_n) +
                     " does not split into 16-column weight tiles over 8 warps");
    }
    require_shared_bytes(require, "stage1",
                         gpu::matrix_stage1_shared_bytes(s1.tile_m, s1.tile_n, s1.tile_k, s1.waves,
                                                         s1.k_waves, s1.fused_fp8_out),
                         device);
    require_shared_bytes(require, "stage2",
                         gpu::matrix_stage2_shared_bytes(s2.tile_m, s2.tile_n, s2.tile_k), device);
}

#else

void require_geometry(const CandidateRequirements& require, const char* stage,
                      const gpu::TileGeometry& g, int thread_bound,
                      const gpu::GpuDeviceFacts& device) {
    const std::string name(stage);
    if (!gpu::is_complete(g)) {
        require.fail(name + " tile " + std::to_string(g.tile_m) + "x" + std::to_string(g.tile_n) +
                     " cannot be spread over " + std::to_string(g.threads_n) +
                     " threads per K group (rows or columns do not split evenly)");
    }
    const int max_threads = std::min(thread_bound, device.max_threads_per_block);
    if (g.threads() > max_threads) {
        require.fail(name + " needs " + std::to_string(g.threads()) + " threads per workgroup, " +
                     "its kernel allows " + std::to_string(max_threads));
    }
    require_shared_bytes(require, stage, g.shared_bytes(), device);
}

#endif

}  // namespace

void check_gpu_candidate(const family::ShapeKey& shape, const family::Candidate& candidate) {
    const CandidateRequirements require("gpu");
    require.check_shape_fit(shape, candidate, kMaxBlockM, kMaxWaves);
    // Atomic accumulation adds bf16 column pairs with one 32-bit atomic.
    if (candidate.stage2.tile_n % 2 != 0) {
        require.fail("stage2.tile_n " + std::to_string(candidate.stage2.tile_n) + " is odd");
    }
    const gpu::GpuDeviceFacts& device = gpu::bound_gpu_device();
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
    check_matrix_candidate(require, shape, candidate, device);
#else
    require_geometry(require, "stage1", gpu::stage1_geometry(candidate.stage1),
                     gpu::kStage1MaxThreads, device);
    require_geometry(require, "stage2", gpu::stage2_geometry(candidate.stage2), gpu::kStage2Threads,
                     device);
#endif
}

}  // namespace fhmoe::kernels
