// What the gpu backend can honour. Like the cpu backend, no silent substitute tile (unlike
// aiter's runtime overrides, spec 6.5): a tile that does not divide its dimension, a block
// over the device's thread limit or a shared-memory footprint over its limit is unsupported.

#include <algorithm>
#include <string>

#include "common/mx_block.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/launch_plan.hpp"
#include "problem/candidate_requirements.hpp"

namespace fhmoe::kernels {
namespace {

constexpr int kMaxBlockM = 256;
constexpr int kMaxWaves = 8;

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
    if (static_cast<std::uint64_t>(g.shared_bytes()) > device.shared_bytes_per_block) {
        require.fail(name + " needs " + std::to_string(g.shared_bytes()) +
                     " bytes of shared memory per workgroup, the device allows " +
                     std::to_string(device.shared_bytes_per_block));
    }
}

}  // namespace

void check_gpu_candidate(const family::ShapeKey& shape, const family::Candidate& candidate) {
    const CandidateRequirements require("gpu");
    require.check_shape_fit(shape, candidate, kMaxBlockM, kMaxWaves);
    // Atomic accumulation adds bf16 column pairs with one 32-bit compare-and-swap.
    if (candidate.stage2.tile_n % 2 != 0) {
        require.fail("stage2.tile_n " + std::to_string(candidate.stage2.tile_n) + " is odd");
    }
    const gpu::GpuDeviceFacts& device = gpu::bound_gpu_device();
    require_geometry(require, "stage1", gpu::stage1_geometry(candidate.stage1),
                     gpu::kStage1MaxThreads, device);
    require_geometry(require, "stage2", gpu::stage2_geometry(candidate.stage2), gpu::kStage2Threads,
                     device);
}

}  // namespace fhmoe::kernels
