// one_launch_step's kernel: a one-token DSV4 I384 decode step as ONE persistent launch on the
// matrix path's real weight layouts (gpu/matrix_layout.hpp, uploaded by GpuProblem). The host
// program (one_launch_step.cpp) checks it against the CPU reference and times it beside the op.
// An experiment for issue #11's one-token clause (docs/gpu.md, "Next at one token"), not an op
// path: nothing in the tuner runs it. NVIDIA sm_90a only.
//
// One workgroup of 8 warpgroups per multiprocessor (all resident), for one token:
//   1. reads the top-k ids, starts copying its stage2 weights into shared memory (workgroups
//      0-111: output columns 64q..64q+63 of the 6 routed experts and the shared one), and
//      quantizes x into the wgmma B layout in shared memory (MXFP8 by lanes, as the op's
//      quantizer);
//   2. stage1: the 84 warpgroup tiles (7 experts x 12 tiles of 64 gate/up rows) x K are a
//      sequence of 10752 steps (a routed tile's 112 K pairs, FP4, one 16-byte chunk a lane; the
//      shared expert's 224 K blocks, FP8); each warpgroup takes a contiguous range of ~10 and
//      adds its tiles' sums for the token into h's FP32 sums (red.add, ping-pong buffers: a run
//      clears the next run's);
//   3. a grid-wide barrier;
//   4. h = SiLU(gate) x up from the sums, quantized into the B layout (84 blocks);
//   5. stage2: each warpgroup takes 6 of the 48 steps (6 routed experts x 6 pairs, the shared
//      expert's 12 blocks) of the workgroup's 4 warp tiles from shared memory, times the top-k
//      weight; the 8 warpgroups' sums added in order through shared memory; 64 BF16 outputs
//      stored, no atomics, no output zeroing.
// The order of stage1's red.add is not fixed, so h's MXFP8 rounding may differ from the
// reference in a last bit (the op's split reduction is in a fixed order).

#include "one_launch_step.hpp"

#include <cstdint>

#include "common/bf16.hpp"
#include "common/portable_silu.hpp"
#include "gpu/matrix_warpgroup_gemm.hpp"

#include "grid_barrier.cuh"
#include "token_b_layout.cuh"

namespace {

namespace gpu = fhmoe::kernels::gpu;
using StepInputs = OneLaunchStepInputs;

constexpr int kThreads = kOneLaunchStepThreads;
constexpr int kWarpgroups = kThreads / 128;
constexpr int kHidden = 7168;
constexpr int kInter = 384;
constexpr int kRoutedSlots = 6;
constexpr int kSlots = kRoutedSlots + 1;                                    // + the shared expert
constexpr int kXBlocks = kHidden / 32;                                      // 224
constexpr int kXPairs = kXBlocks / 2;                                       // 112
constexpr int kHBlocksPerSlot = kInter / 32;                                // 12
constexpr int kHPairsPerSlot = kHBlocksPerSlot / 2;                         // 6
constexpr int kStage1TilesPerSlot = 2 * kInter / 64;                        // 12 warpgroup tiles
constexpr int kOutputWorkgroups = kHidden / 64;                             // 112
constexpr int kRoutedSteps = kRoutedSlots * kStage1TilesPerSlot * kXPairs;  // 8064
constexpr int kSharedSteps = kStage1TilesPerSlot * kXBlocks;                // 2688
constexpr int kStage1Steps = kRoutedSteps + kSharedSteps;                   // 10752
constexpr int kStage2Steps = kRoutedSlots * kHPairsPerSlot + kHBlocksPerSlot;  // 48
constexpr int kHSums = kSlots * 2 * kInter;                                    // 5376

// Bytes of the matrix path's layouts (matrix_weights.cpp).
constexpr std::size_t kW1Codes = static_cast<std::size_t>(2 * kInter) * kHidden / 2;
constexpr std::size_t kW1Scales = static_cast<std::size_t>(2 * kInter) * kXBlocks;
constexpr std::size_t kW2Codes = static_cast<std::size_t>(kHidden) * kInter / 2;
constexpr std::size_t kW2Scales = static_cast<std::size_t>(kHidden) * kHBlocksPerSlot;
constexpr unsigned kChunk = 16;
constexpr unsigned kWarpTilePairBytes = 32 * kChunk;  // one warp tile's pair (FP4) or block (FP8)

// Shared memory: x and h in B's layout, then the staged stage2 weights: the 6 routed slots'
// codes (4 warp tiles x 6 pairs), the shared expert's (4 x 12 blocks), then the 7 slots' scales
// (4 warp tiles x 6 pairs x 8 g words).
constexpr unsigned kXBytes = kXBlocks * gpu::kWarpgroupBlockBytes;                  // 57344
constexpr unsigned kHBytes = kSlots * kHBlocksPerSlot * gpu::kWarpgroupBlockBytes;  // 21504
constexpr unsigned kStagedRoutedCodes = 4 * kHPairsPerSlot * kWarpTilePairBytes;    // 12288
constexpr unsigned kStagedSharedCodes = 4 * kHBlocksPerSlot * kWarpTilePairBytes;   // 24576
constexpr unsigned kStagedScales = 4 * kHPairsPerSlot * 8 * 4;                      // 768
constexpr unsigned kStagedBytes =
    kRoutedSlots * kStagedRoutedCodes + kStagedSharedCodes + kSlots * kStagedScales;
constexpr unsigned kSharedBytes = kXBytes + kHBytes + kStagedBytes;

// A stage1 step's FP32 products for the token (lane 4g's rows g and g + 8) into `acc`: FP4 steps
// are a K pair (two blocks, one chunk), FP8 steps one block (one chunk, the pair's scale word).
__device__ __forceinline__ void stage_step(float (&acc)[1][4], const uint4& chunk, unsigned scales,
                                           bool fp4, int block, std::uint32_t b_low,
                                           unsigned factors) {
    std::uint32_t a[2][4];
    float d[2][4];
    const uint4 codes[2] = {chunk, chunk};
    const uint4 fp4_codes[1] = {chunk};
    // The fence goes between the fragments' register writes and the instructions that read
    // them (PTX: wgmma.fence).
    if (fp4) {
        gpu::weight_fragment<true>(fp4_codes, 0, a[0]);
        gpu::weight_fragment<true>(fp4_codes, 1, a[1]);
        gpu::warpgroup_fence();
        gpu::warpgroup_mma_block(d[0], a[0], gpu::warpgroup_b_descriptor(b_low));
        gpu::warpgroup_mma_block(
            d[1], a[1], gpu::warpgroup_b_descriptor(b_low + (gpu::kWarpgroupBlockBytes >> 4)));
    } else {
        gpu::weight_fragment<false>(codes, 0, a[0]);
        gpu::warpgroup_fence();
        gpu::warpgroup_mma_block(d[0], a[0], gpu::warpgroup_b_descriptor(b_low));
    }
    gpu::warpgroup_commit();
    gpu::warpgroup_wait_all();
    if (fp4) {
        gpu::add_scaled_block<true>(acc, d[0], scales, factors, 0u, 0);
        gpu::add_scaled_block<true>(acc, d[1], scales, factors, 0u, 1);
    } else {
        gpu::add_scaled_block<true>(acc, d[0], scales, factors, 0u, block & 1);
    }
}

// Where stage1's step `step` of the sequence is: FP4 steps (the 6 routed slots' 12 warpgroup
// tiles x 112 K pairs) first, then the shared expert's FP8 ones (12 tiles x 224 K blocks).
struct Stage1Step {
    bool fp4;
    int tile;     // slot * 12 + warpgroup tile of the slot
    int k_index;  // FP4: the K pair; FP8: the K block
    __device__ explicit Stage1Step(int step) {
        fp4 = step < kRoutedSteps;
        if (fp4) {
            tile = step / kXPairs;
            k_index = step % kXPairs;
        } else {
            tile = kRoutedSlots * kStage1TilesPerSlot + (step - kRoutedSteps) / kXBlocks;
            k_index = (step - kRoutedSteps) % kXBlocks;
        }
    }
    __device__ int slot() const { return tile / kStage1TilesPerSlot; }
    __device__ int pair() const { return fp4 ? k_index : k_index / 2; }
    __device__ int block() const { return fp4 ? 2 * k_index : k_index; }
};

// This lane's chunk and scale word of a stage1 step (warp `warp_in_group` of the warpgroup
// takes warp tile 4 x (the tile's index in its slot) + warp_in_group).
__device__ __forceinline__ void load_stage1_step(const StepInputs& in, const int* experts, int step,
                                                 int warp_in_group, int lane, uint4& chunk,
                                                 unsigned& scales) {
    const Stage1Step s(step);
    const std::size_t j =
        static_cast<std::size_t>((s.tile % kStage1TilesPerSlot) * 4 + warp_in_group);
    const std::size_t pair = static_cast<std::size_t>(s.pair());
    const std::size_t g = static_cast<std::size_t>(lane / 4);
    if (s.fp4) {
        const auto expert = static_cast<std::size_t>(experts[s.slot()]);
        chunk = __ldcs(reinterpret_cast<const uint4*>(in.weights.w1_fp4 + expert * kW1Codes +
                                                      ((j * kXPairs + pair) * 32 + lane) * kChunk));
        scales = __ldcs(reinterpret_cast<const unsigned*>(in.weights.w1_scale + expert * kW1Scales +
                                                          ((j * kXPairs + pair) * 8 + g) * 4));
    } else {
        chunk = __ldcs(reinterpret_cast<const uint4*>(
            in.weights.shared_w1_fp8 +
            ((j * kXBlocks + static_cast<std::size_t>(s.k_index)) * 32 + lane) * kChunk));
        scales = __ldcs(reinterpret_cast<const unsigned*>(in.weights.shared_w1_scale +
                                                          ((j * kXPairs + pair) * 8 + g) * 4));
    }
}

// Stage1 steps in flight per warp: each warpgroup's ~10 steps would otherwise wait out a memory
// round trip each.
constexpr int kInFlight = 4;

__global__ void __launch_bounds__(kThreads, 1)
    one_launch_step_kernel(StepInputs in, float* h_sums, std::uint16_t* out, unsigned* barrier) {
    extern __shared__ uint4 shared_words[];
    auto* shared = reinterpret_cast<std::uint8_t*>(shared_words);
    std::uint8_t* x_blocks = shared;
    std::uint8_t* h_blocks = shared + kXBytes;
    std::uint8_t* staged = h_blocks + kHBytes;
    __shared__ alignas(4) std::uint16_t x_factors[kXBlocks];
    __shared__ alignas(4) std::uint16_t h_factors[kSlots * kHBlocksPerSlot];
    __shared__ float partial[kWarpgroups][64];
    __shared__ int experts[kRoutedSlots];
    __shared__ float slot_weights[kSlots];
    const int warpgroup = static_cast<int>(threadIdx.x / 128);
    const int warp = static_cast<int>(threadIdx.x / 32);
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int g = lane / 4;
    const int warp_in_group = warp % 4;

    // The token's 7 slots, the shared expert last (its weight is the routing's too).
    if (threadIdx.x < kRoutedSlots) experts[threadIdx.x] = in.topk_ids[threadIdx.x];
    if (threadIdx.x < kSlots) slot_weights[threadIdx.x] = in.topk_weights[threadIdx.x];
    // This run's h sums and the next run's, which this run clears: the barrier's round parity.
    const unsigned round = *reinterpret_cast<volatile unsigned*>(barrier) / gridDim.x;
    float* sums_now = h_sums + (round % 2) * kHSums;
    float* sums_next = h_sums + ((round + 1) % 2) * kHSums;
    for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < kHSums;
         i += static_cast<int>(gridDim.x * blockDim.x)) {
        sums_next[i] = 0.0f;
    }
    for (unsigned i = threadIdx.x; i < (kXBytes + kHBytes) / 16; i += blockDim.x) {
        shared_words[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();

    // 1. Stage2's weights of this workgroup's 64 output columns (warp tiles 4q..4q+3) into
    // shared memory while stage1 runs.
    const int q = static_cast<int>(blockIdx.x);
    if (q < kOutputWorkgroups) {
        for (int slot = 0; slot < kRoutedSlots; ++slot) {
            const std::size_t expert = static_cast<std::size_t>(experts[slot]);
            const std::uint8_t* codes =
                in.weights.w2_fp4 + expert * kW2Codes +
                static_cast<std::size_t>(4 * q) * kHPairsPerSlot * kWarpTilePairBytes;
            for (unsigned i = threadIdx.x; i < kStagedRoutedCodes / kChunk; i += blockDim.x) {
                gpu::copy_async_16(staged + slot * kStagedRoutedCodes + i * kChunk,
                                   codes + i * kChunk);
            }
            const std::uint8_t* scales = in.weights.w2_scale + expert * kW2Scales +
                                         static_cast<std::size_t>(4 * q) * kStagedScales / 4;
            for (unsigned i = threadIdx.x; i < kStagedScales / kChunk; i += blockDim.x) {
                gpu::copy_async_16(staged + kRoutedSlots * kStagedRoutedCodes + kStagedSharedCodes +
                                       slot * kStagedScales + i * kChunk,
                                   scales + i * kChunk);
            }
        }
        const std::uint8_t* codes = in.weights.shared_w2_fp8 + static_cast<std::size_t>(4 * q) *
                                                                   kHBlocksPerSlot *
                                                                   kWarpTilePairBytes;
        for (unsigned i = threadIdx.x; i < kStagedSharedCodes / kChunk; i += blockDim.x) {
            gpu::copy_async_16(staged + kRoutedSlots * kStagedRoutedCodes + i * kChunk,
                               codes + i * kChunk);
        }
        const std::uint8_t* scales =
            in.weights.shared_w2_scale + static_cast<std::size_t>(4 * q) * kStagedScales / 4;
        for (unsigned i = threadIdx.x; i < kStagedScales / kChunk; i += blockDim.x) {
            gpu::copy_async_16(staged + kRoutedSlots * kStagedRoutedCodes + kStagedSharedCodes +
                                   kRoutedSlots * kStagedScales + i * kChunk,
                               scales + i * kChunk);
        }
    }
    gpu::commit_copies();

    // The token's x in B's layout.
    for (int block = warp; block < kXBlocks; block += kThreads / 32) {
        const float value = __uint_as_float(static_cast<unsigned>(in.x[block * 32 + lane]) << 16);
        quantize_into_b(value, block, x_blocks, x_factors);
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const std::uint32_t x_low =
        gpu::warpgroup_b_descriptor_low(static_cast<unsigned>(__cvta_generic_to_shared(x_blocks)));
    const auto* x_factor_pairs = reinterpret_cast<const unsigned*>(x_factors);

    // 2. Stage1: this warpgroup's contiguous range of the step sequence.
    const int global_group = q * kWarpgroups + warpgroup;
    const int groups = static_cast<int>(gridDim.x) * kWarpgroups;
    const int first =
        static_cast<int>(static_cast<long long>(global_group) * kStage1Steps / groups);
    const int last =
        static_cast<int>(static_cast<long long>(global_group + 1) * kStage1Steps / groups);
    float acc[1][4] = {{0.0f, 0.0f, 0.0f, 0.0f}};
    int tile = -1;  // the warpgroup tile being summed: slot * 12 + tile of the slot
    auto flush = [&](int flushed) {
        // The tile's FP4 codes are the values x 2^-6; lanes 4g hold the token's gate (row g)
        // and up (row g + 8) sums of h column 8 j + g.
        const int slot = flushed / kStage1TilesPerSlot;
        const int j = (flushed % kStage1TilesPerSlot) * 4 + warp_in_group;
        const float factor = slot < kRoutedSlots ? gpu::kFp4AsE4m3Factor : 1.0f;
        if (lane % 4 == 0) {
            const int column = 8 * j + g;
            atomicAdd(sums_now + slot * 2 * kInter + column, acc[0][0] * factor);
            atomicAdd(sums_now + slot * 2 * kInter + kInter + column, acc[0][2] * factor);
        }
        acc[0][0] = acc[0][1] = acc[0][2] = acc[0][3] = 0.0f;
    };
    // Rolling prefetch: slot u holds step base + u; after its step is summed it takes the step
    // kInFlight further on, so up to kInFlight loads stay in flight.
    uint4 chunks[kInFlight];
    unsigned scale_words[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
        if (first + u < last) {
            load_stage1_step(in, experts, first + u, warp_in_group, lane, chunks[u],
                             scale_words[u]);
        }
    }
    for (int base = first; base < last; base += kInFlight) {
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const int step = base + u;
            if (step >= last) break;
            const Stage1Step s(step);
            if (s.tile != tile) {
                if (tile >= 0) flush(tile);
                tile = s.tile;
            }
            const uint4 chunk = chunks[u];
            const unsigned scales = scale_words[u];
            if (step + kInFlight < last) {
                load_stage1_step(in, experts, step + kInFlight, warp_in_group, lane, chunks[u],
                                 scale_words[u]);
            }
            stage_step(acc, chunk, scales, s.fp4, s.block(),
                       x_low + static_cast<unsigned>(s.block()) * (gpu::kWarpgroupBlockBytes >> 4),
                       x_factor_pairs[s.pair()]);
        }
    }
    if (tile >= 0) flush(tile);

    // 3. Everyone's sums are in.
    grid_barrier(barrier);

    // 4. h = SiLU(gate) x up, quantized into B's layout.
    for (int block = warp; block < kSlots * kHBlocksPerSlot; block += kThreads / 32) {
        const int slot = block / kHBlocksPerSlot;
        const int column = (block % kHBlocksPerSlot) * 32 + lane;
        const float gate = __ldcg(sums_now + slot * 2 * kInter + column);
        const float up = __ldcg(sums_now + slot * 2 * kInter + kInter + column);
        quantize_into_b(fhmoe::kernels::portable_silu(gate) * up, block, h_blocks, h_factors);
    }
    gpu::wait_copies<0>();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (q >= kOutputWorkgroups) return;

    // 5. Stage2 from shared memory: steps warpgroup, warpgroup + 8, ... of the 48.
    const std::uint32_t h_low =
        gpu::warpgroup_b_descriptor_low(static_cast<unsigned>(__cvta_generic_to_shared(h_blocks)));
    const auto* h_factor_pairs = reinterpret_cast<const unsigned*>(h_factors);
    float out_acc[2] = {0.0f, 0.0f};
    for (int step = warpgroup; step < kStage2Steps; step += kWarpgroups) {
        const bool fp4 = step < kRoutedSlots * kHPairsPerSlot;
        const int slot = fp4 ? step / kHPairsPerSlot : kRoutedSlots;
        const int k_index = fp4 ? step % kHPairsPerSlot : step - kRoutedSlots * kHPairsPerSlot;
        const int pair = fp4 ? k_index : k_index / 2;
        const unsigned codes_at =
            fp4 ? slot * kStagedRoutedCodes +
                      ((warp_in_group * kHPairsPerSlot + pair) * 32 + lane) * kChunk
                : kRoutedSlots * kStagedRoutedCodes +
                      ((warp_in_group * kHBlocksPerSlot + k_index) * 32 + lane) * kChunk;
        const unsigned scales_at = kRoutedSlots * kStagedRoutedCodes + kStagedSharedCodes +
                                   slot * kStagedScales +
                                   ((warp_in_group * kHPairsPerSlot + pair) * 8 + g) * 4;
        const uint4 chunk = *reinterpret_cast<const uint4*>(staged + codes_at);
        const unsigned scales = *reinterpret_cast<const unsigned*>(staged + scales_at);
        const int block = slot * kHBlocksPerSlot + (fp4 ? 2 * k_index : k_index);
        float step_acc[1][4] = {{0.0f, 0.0f, 0.0f, 0.0f}};
        stage_step(step_acc, chunk, scales, fp4, block,
                   h_low + static_cast<unsigned>(block) * (gpu::kWarpgroupBlockBytes >> 4),
                   h_factor_pairs[block / 2]);
        const float factor = (fp4 ? gpu::kFp4AsE4m3Factor : 1.0f) * slot_weights[slot];
        out_acc[0] = fmaf(step_acc[0][0], factor, out_acc[0]);
        out_acc[1] = fmaf(step_acc[0][2], factor, out_acc[1]);
    }
    // Lanes 4g: output columns 16 w + 2 g (row g) and + 1 (row g + 8) of this workgroup's 64.
    if (lane % 4 == 0) {
        partial[warpgroup][16 * warp_in_group + 2 * g] = out_acc[0];
        partial[warpgroup][16 * warp_in_group + 2 * g + 1] = out_acc[1];
    }
    __syncthreads();
    if (threadIdx.x < 64) {
        float total = 0.0f;
        for (int w = 0; w < kWarpgroups; ++w) total += partial[w][threadIdx.x];
        out[q * 64 + static_cast<int>(threadIdx.x)] = fhmoe::kernels::encode_bf16(total);
    }
}

}  // namespace

unsigned one_launch_step_shared_bytes() { return kSharedBytes; }

bool one_launch_step_fits(int multiprocessors) {
    int fits = 0;
    return cudaFuncSetAttribute(one_launch_step_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(kSharedBytes)) == cudaSuccess &&
           cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fits, one_launch_step_kernel, kThreads,
                                                         kSharedBytes) == cudaSuccess &&
           fits >= 1 && multiprocessors >= kOutputWorkgroups;
}

void launch_one_launch_step(const OneLaunchStepInputs& inputs, float* h_sums, std::uint16_t* out,
                            unsigned* barrier, int multiprocessors, cudaStream_t stream) {
    one_launch_step_kernel<<<static_cast<unsigned>(multiprocessors), kThreads, kSharedBytes,
                             stream>>>(inputs, h_sums, out, barrier);
}
