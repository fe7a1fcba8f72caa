// What the gpu backend can honour. Like the cpu backend, no silent substitute tile (unlike
// aiter's runtime overrides, spec 6.5): a tile that does not divide its dimension, a block
// over the device's thread limit or a shared-memory footprint over its limit is unsupported.

#include <algorithm>
#include <string>

#include "common/mx_block.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/launch_plan.hpp"

namespace fhmoe::kernels {
namespace {

constexpr int kMaxBlockM = 256;
constexpr int kMaxWaves = 8;

[[noreturn]] void unsupported(const std::string& reason) {
    throw UnsupportedCandidate("gpu backend cannot run this candidate: " + reason);
}

void require_between(const char* field, int value, int low, int high) {
    if (value < low || value > high) {
        unsupported(std::string(field) + " " + std::to_string(value) + " is outside [" +
                    std::to_string(low) + ", " + std::to_string(high) + "]");
    }
}

void require_divides(const char* field, int value, const char* dimension, std::int64_t size) {
    if (value <= 0 || size % value != 0) {
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

void require_geometry(const char* stage, const gpu::TileGeometry& g, int thread_bound,
                      const gpu::GpuDeviceFacts& device) {
    const std::string name(stage);
    if (!gpu::is_complete(g)) {
        unsupported(name + " tile " + std::to_string(g.tile_m) + "x" + std::to_string(g.tile_n) +
                    " cannot be spread over " + std::to_string(g.threads_n) +
                    " threads per K group (rows or columns do not split evenly)");
    }
    const int max_threads = std::min(thread_bound, device.max_threads_per_block);
    if (g.threads() > max_threads) {
        unsupported(name + " needs " + std::to_string(g.threads()) + " threads per workgroup, " +
                    "its kernel allows " + std::to_string(max_threads));
    }
    if (static_cast<std::uint64_t>(g.shared_bytes()) > device.shared_bytes_per_block) {
        unsupported(name + " needs " + std::to_string(g.shared_bytes()) +
                    " bytes of shared memory per workgroup, the device allows " +
                    std::to_string(device.shared_bytes_per_block));
    }
}

}  // namespace

void check_gpu_candidate(const family::ShapeKey& shape, const family::Candidate& candidate) {
    const family::Stage1Config& s1 = candidate.stage1;
    const family::Stage2Config& s2 = candidate.stage2;
    require_between("block_m", candidate.block_m, 1, kMaxBlockM);

    require_between("stage1.tile_m", s1.tile_m, 1, kMaxBlockM);
    require_divides("stage1.tile_m", s1.tile_m, "block_m", candidate.block_m);
    // Whole scale blocks, so the fused epilogue quantizes complete 1x32 blocks of h.
    require_scale_blocks("stage1.tile_n", s1.tile_n);
    require_divides("stage1.tile_n", s1.tile_n, "inter_dim", shape.inter_dim);
    require_scale_blocks("stage1.tile_k", s1.tile_k);
    require_divides("stage1.tile_k", s1.tile_k, "model_dim", shape.model_dim);
    require_between("stage1.waves", s1.waves, 1, kMaxWaves);
    require_between("stage1.k_waves", s1.k_waves, 1, kMaxWaves);
    require_divides("stage1.k_waves", s1.k_waves, "the scale blocks of stage1.tile_k",
                    s1.tile_k / kMxBlockSize);
    if (s1.gate_mode != shape.gate_mode) {
        unsupported(std::string("stage1.gate_mode ") +
                    std::string(family::to_aiter_string(s1.gate_mode)) + " is not the shape's " +
                    std::string(family::to_aiter_string(shape.gate_mode)));
    }

    require_between("stage2.tile_m", s2.tile_m, 1, kMaxBlockM);
    require_divides("stage2.tile_m", s2.tile_m, "block_m", candidate.block_m);
    require_divides("stage2.tile_n", s2.tile_n, "model_dim", shape.model_dim);
    // Atomic accumulation adds bf16 column pairs with one 32-bit compare-and-swap.
    if (s2.tile_n % 2 != 0) unsupported("stage2.tile_n " + std::to_string(s2.tile_n) + " is odd");
    require_scale_blocks("stage2.tile_k", s2.tile_k);
    require_divides("stage2.tile_k", s2.tile_k, "inter_dim", shape.inter_dim);

    const gpu::GpuDeviceFacts& device = gpu::bound_gpu_device();
    require_geometry("stage1", gpu::stage1_geometry(s1), gpu::kStage1MaxThreads, device);
    require_geometry("stage2", gpu::stage2_geometry(s2), gpu::kStage2Threads, device);
}

}  // namespace fhmoe::kernels
