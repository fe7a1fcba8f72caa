// gpu_stream_bound: what a decode step would cost if its kernels did nothing but read their
// weight bytes, chained as the op chains them (a one-workgroup launch standing in for the
// routing, then stage1's bytes, then stage2's), under CUDA graph replay with the sources
// rotated over copies so that no replay finds them in L2. It is the attainable floor of a
// three-launch op, beside the copy-bandwidth floor fhmoe_gpu_bench prints (never a test). Beside
// it, the floor of one persistent launch (one workgroup per multiprocessor reads its share of
// stage1's bytes, a grid-wide barrier, then its share of stage2's), with and without its share
// of stage2's bytes copied into shared memory while it reads stage1's: what a one-launch decode
// step could reach; and that staged launch doing the stages' FP4 -> e4m3 conversion, wgmma and
// scale arithmetic on every byte it reads (1024 or 512 threads): whether a fused one-launch
// decode kernel could compute at the speed it reads. NVIDIA only (sm_90a). Usage:
// gpu_stream_bound (the DSV4 I384 byte counts at 1, 4 and 16 tokens).

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "gpu/matrix_warpgroup_gemm.hpp"
#include "grid_barrier.cuh"
#include "token_b_layout.cuh"

namespace {

namespace gpu = fhmoe::kernels::gpu;

bool ok(cudaError_t error, const char* what) {
    if (error == cudaSuccess) return true;
    std::fprintf(stderr, "gpu_stream_bound: %s: %s\n", what, cudaGetErrorString(error));
    return false;
}

__global__ void routing_stand_in(unsigned* sink) {
    if (threadIdx.x == 0) sink[1] += 1;
}

// The thread's 16-byte chunks first, first + stride, ... below end, kInFlight loads
// outstanding (streaming, not kept in L1/L2), folded into one word that the kernels store only
// on an impossible value so the loads stay.
template <int kInFlight>
__device__ unsigned fold_chunks(const uint4* __restrict__ source, std::size_t first,
                                std::size_t end, std::size_t stride) {
    unsigned folded = 0;
    std::size_t i = first;
    for (; i + (kInFlight - 1) * stride < end; i += kInFlight * stride) {
        uint4 v[kInFlight];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) v[u] = __ldcs(source + i + u * stride);
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) folded ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < end; i += stride) {
        const uint4 v = __ldcs(source + i);
        folded ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    return folded;
}

// The chained kernels: grid-stride, four loads in flight per thread.
constexpr int kInFlight = 4;
constexpr int kThreads = 256;
constexpr int kBlocksPerMultiprocessor = 8;

__global__ void __launch_bounds__(kThreads)
    read_bytes(const uint4* __restrict__ source, std::size_t chunks, unsigned* sink) {
    const unsigned folded = fold_chunks<kInFlight>(
        source, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x, chunks,
        static_cast<std::size_t>(gridDim.x) * blockDim.x);
    if (folded == 0x12345678u) sink[0] = folded;
}

// One persistent workgroup per multiprocessor (all resident: the grid is the multiprocessor
// count at an occupancy of at least one). Each takes a contiguous share of stage1's and of
// stage2's bytes; with staged_chunks > 0 it first starts asynchronous copies of up to that
// many 16-byte chunks of its stage2 share into shared memory, reads its stage1 share, meets
// the others at a grid-wide barrier (stage2 needs all of stage1's output), then folds the copies
// and reads the rest.
constexpr int kOneLaunchThreads = 1024;

__device__ std::size_t smaller(std::size_t a, std::size_t b) { return a < b ? a : b; }
constexpr int kOneLaunchInFlight = 8;

// The workgroup's chunks [begin, end), block-stride.
__device__ unsigned fold_range(const uint4* __restrict__ source, std::size_t begin,
                               std::size_t end) {
    return fold_chunks<kOneLaunchInFlight>(source, begin + threadIdx.x, end, blockDim.x);
}

// The workgroup's asynchronous copies of `count` 16-byte chunks from `source` into `staged`,
// one commit group (wait_copies<0> before reading them).
__device__ void start_staging(uint4* staged, const uint4* __restrict__ source, std::size_t count) {
    for (std::size_t i = threadIdx.x; i < count; i += blockDim.x) {
        gpu::copy_async_16(staged + i, source + i);
    }
    gpu::commit_copies();
}

__global__ void __launch_bounds__(kOneLaunchThreads)
    one_launch_bytes(const uint4* __restrict__ stage1, std::size_t chunks1,
                     const uint4* __restrict__ stage2, std::size_t chunks2,
                     std::size_t staged_chunks, unsigned* barrier, unsigned* sink) {
    extern __shared__ uint4 staged[];
    const std::size_t share2 = (chunks2 + gridDim.x - 1) / gridDim.x;
    const std::size_t begin2 = smaller(chunks2, blockIdx.x * share2);
    const std::size_t end2 = smaller(chunks2, begin2 + share2);
    const std::size_t staged_here = smaller(end2 - begin2, staged_chunks);
    start_staging(staged, stage2 + begin2, staged_here);
    const std::size_t share1 = (chunks1 + gridDim.x - 1) / gridDim.x;
    const std::size_t begin1 = smaller(chunks1, blockIdx.x * share1);
    unsigned folded = fold_range(stage1, begin1, smaller(chunks1, begin1 + share1));
    grid_barrier(barrier);
    gpu::wait_copies<0>();
    __syncthreads();
    for (std::size_t i = threadIdx.x; i < staged_here; i += blockDim.x) {
        const uint4 v = staged[i];
        folded ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    folded ^= fold_range(stage2, begin2 + staged_here, end2);
    if (folded == 0x12345678u) sink[0] = folded;
}
constexpr std::size_t kOneLaunchStagedBytes = 200 * 1024;

// The same one launch doing the stages' arithmetic on the bytes it reads: issue #11's go/no-go
// for a fused decode kernel (a persistent launch, stage2's weights landing in shared memory
// during stage1). Each warpgroup takes 128-chunk steps of its workgroup's share: every lane
// loads one 16-byte chunk of FP4 codes straight into registers (kInFlight steps in flight)
// and a 32-bit word of E8M0 scales (1/16 of the bytes, as MXFP4 has), turns the codes into
// e4m3 (gpu/matrix_warpgroup_gemm.hpp's conversion), runs the two scale blocks of the chunk
// through wgmma m64n8k32 against one token's activations in shared memory, and adds each
// block's result times its weight and activation scales in FP32: the small tiles' one-row
// step without its shared-memory ring. After the grid-wide barrier the staged stage2 chunks
// go through the same step from shared memory, the rest from global memory. What it leaves
// out of a real op (the token's quantization, the K split's sums across workgroups, h's
// quantization, the output) is on the order of 1-2 us at one token (docs/performance.md).
constexpr int kActivationBlocks = 32;  // one token's B blocks in shared memory, cycled over
constexpr std::size_t kActivationBytes = kActivationBlocks * gpu::kWarpgroupBlockBytes;
constexpr std::size_t kComputeStagedBytes = 192 * 1024;

struct StepSums {
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
};

__device__ __forceinline__ float e8m0_factor(unsigned byte) { return __uint_as_float(byte << 23); }

// One 16-byte chunk (two scale blocks of this lane's A fragment) through the tensor cores:
// step s takes the token's blocks 2s and 2s + 1 (of the kActivationBlocks it cycles over), whose
// descriptors differ from the first block's (`descriptor_low`) by constants.
__device__ __forceinline__ void chunk_step(const uint4& codes, unsigned scales, std::size_t step,
                                           std::uint32_t descriptor_low,
                                           const unsigned* activation_scales, StepSums& sums) {
    constexpr unsigned kBlockUnits = gpu::kWarpgroupBlockBytes >> 4;  // descriptor units
    const unsigned pair = static_cast<unsigned>(step) % (kActivationBlocks / 2);
    std::uint32_t a0[4];
    std::uint32_t a1[4];
    gpu::fp4x8_to_e4m3x8(codes.x, a0[0], a0[1]);
    gpu::fp4x8_to_e4m3x8(codes.y, a0[2], a0[3]);
    gpu::fp4x8_to_e4m3x8(codes.z, a1[0], a1[1]);
    gpu::fp4x8_to_e4m3x8(codes.w, a1[2], a1[3]);
    const std::uint32_t low0 = descriptor_low + pair * 2 * kBlockUnits;
    float d0[4];
    float d1[4];
    gpu::warpgroup_fence();
    gpu::warpgroup_mma_block(d0, a0, gpu::warpgroup_b_descriptor(low0));
    gpu::warpgroup_mma_block(d1, a1, gpu::warpgroup_b_descriptor(low0 + kBlockUnits));
    gpu::warpgroup_commit();
    gpu::warpgroup_wait_all();
    for (int i = 0; i < 4; ++i) {
        gpu::warpgroup_result_fence(d0[i]);
        gpu::warpgroup_result_fence(d1[i]);
    }
    // The token's two block scales (BF16 factors, as the kernels keep them), then each row's.
    const unsigned token_scales = activation_scales[pair];
    const float x0 = __uint_as_float(token_scales << 16);
    const float x1 = __uint_as_float(token_scales & 0xFFFF0000u);
    const float g0 = e8m0_factor(scales & 0xFFu) * x0;
    const float h0 = e8m0_factor((scales >> 8) & 0xFFu) * x0;
    const float g1 = e8m0_factor((scales >> 16) & 0xFFu) * x1;
    const float h1 = e8m0_factor(scales >> 24) * x1;
    sums.sum[0] = fmaf(d0[0], g0, fmaf(d1[0], g1, sums.sum[0]));
    sums.sum[1] = fmaf(d0[1], g0, fmaf(d1[1], g1, sums.sum[1]));
    sums.sum[2] = fmaf(d0[2], h0, fmaf(d1[2], h1, sums.sum[2]));
    sums.sum[3] = fmaf(d0[3], h0, fmaf(d1[3], h1, sums.sum[3]));
}

// This lane's chunk of FP4 codes and its scale word (a word per four chunks), streaming; zeros
// (and scales of 1) where `here` is false.
__device__ __forceinline__ void load_chunk(const uint4* __restrict__ codes,
                                           const unsigned* __restrict__ scales, std::size_t chunk,
                                           bool here, uint4& loaded, unsigned& loaded_scales) {
    loaded = here ? __ldcs(codes + chunk) : make_uint4(0, 0, 0, 0);
    loaded_scales = here ? __ldcs(scales + chunk / 4) : 0x7F7F7F7Fu;
}

// A warpgroup's steps over the chunks [begin, end) of global memory: step s covers chunks
// begin + 128 s .. + 127; the workgroup's warpgroups take every warpgroups-th step. The step
// count depends on the warpgroup only, so its four warps issue the same wgmma instructions;
// a lane past `end` multiplies zeros.
template <int kInFlight>
__device__ void global_steps(const uint4* __restrict__ codes, const unsigned* __restrict__ scales,
                             std::size_t begin, std::size_t end, int warpgroup, int warpgroups,
                             std::uint32_t descriptor_low, const unsigned* activation_scales,
                             StepSums& sums) {
    const int lane = static_cast<int>(threadIdx.x % 128);
    const std::size_t steps = (end - begin + 127) / 128;
    for (std::size_t s = warpgroup; s < steps;
         s += static_cast<std::size_t>(warpgroups) * kInFlight) {
        uint4 loaded[kInFlight];
        unsigned loaded_scales[kInFlight];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const std::size_t chunk = begin + (s + static_cast<std::size_t>(u) * warpgroups) * 128 +
                                      static_cast<std::size_t>(lane);
            load_chunk(codes, scales, chunk, chunk < end, loaded[u], loaded_scales[u]);
        }
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const std::size_t step = s + static_cast<std::size_t>(u) * warpgroups;
            if (step < steps) {
                chunk_step(loaded[u], loaded_scales[u], step, descriptor_low, activation_scales,
                           sums);
            }
        }
    }
}

template <int kThreads, int kInFlight>
__global__ void __launch_bounds__(kThreads, 1)
    one_launch_compute(const uint4* __restrict__ stage1, const unsigned* __restrict__ scales1,
                       std::size_t chunks1, const uint4* __restrict__ stage2,
                       const unsigned* __restrict__ scales2, std::size_t chunks2,
                       const uint4* __restrict__ activations, std::size_t staged_chunks,
                       unsigned* barrier, unsigned* sink) {
    extern __shared__ uint4 shared[];
    uint4* activation_blocks = shared;
    uint4* staged = shared + kActivationBytes / 16;
    __shared__ unsigned activation_scales[kActivationBlocks / 2];
    const int warpgroup = static_cast<int>(threadIdx.x / 128);
    constexpr int kWarpgroups = kThreads / 128;

    const std::size_t share2 = (chunks2 + gridDim.x - 1) / gridDim.x;
    const std::size_t begin2 = smaller(chunks2, blockIdx.x * share2);
    const std::size_t end2 = smaller(chunks2, begin2 + share2);
    const std::size_t staged_here = smaller(end2 - begin2, staged_chunks);
    start_staging(staged, stage2 + begin2, staged_here);
    // The token's activations (codes and scales), as the quantization would leave them.
    for (std::size_t i = threadIdx.x; i < kActivationBytes / 16; i += blockDim.x) {
        activation_blocks[i] = activations[i];
    }
    if (threadIdx.x < kActivationBlocks / 2) activation_scales[threadIdx.x] = 0x3F803F80u;
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const std::uint32_t descriptor_low = gpu::warpgroup_b_descriptor_low(
        static_cast<unsigned>(__cvta_generic_to_shared(activation_blocks)));

    StepSums sums;
    const std::size_t share1 = (chunks1 + gridDim.x - 1) / gridDim.x;
    const std::size_t begin1 = smaller(chunks1, blockIdx.x * share1);
    global_steps<kInFlight>(stage1, scales1, begin1, smaller(chunks1, begin1 + share1), warpgroup,
                            kWarpgroups, descriptor_low, activation_scales, sums);
    grid_barrier(barrier);
    gpu::wait_copies<0>();
    __syncthreads();
    // The staged chunks from shared memory (their scales from global: 1/16 of the bytes).
    const int lane = static_cast<int>(threadIdx.x % 128);
    const std::size_t staged_steps = (staged_here + 127) / 128;
    for (std::size_t step = warpgroup; step < staged_steps; step += kWarpgroups) {
        const std::size_t chunk = step * 128 + static_cast<std::size_t>(lane);
        const bool here = chunk < staged_here;
        const uint4 codes = here ? staged[chunk] : make_uint4(0, 0, 0, 0);
        const unsigned scales = here ? __ldcs(scales2 + (begin2 + chunk) / 4) : 0x7F7F7F7Fu;
        chunk_step(codes, scales, step, descriptor_low, activation_scales, sums);
    }
    global_steps<kInFlight>(stage2, scales2, begin2 + staged_here, end2, warpgroup, kWarpgroups,
                            descriptor_low, activation_scales, sums);
    const float folded = sums.sum[0] + sums.sum[1] + sums.sum[2] + sums.sum[3];
    if (folded == 1234.5f) sink[0] = __float_as_uint(folded);
}

// The whole one-token step in one launch, on stand-in data (the bytes are not in the upload's
// layout and the result means nothing; the work and the synchronisation are the real op's):
// every workgroup quantizes the token's x into B's layout in shared memory (MXFP8 by lanes,
// 224 blocks) and starts the copy of its stage2 share into shared memory; its warpgroups run
// stage1's steps over its contiguous share of the (tile, K pair) steps of the 84 64-row tiles
// (gate and up rows of the 7 experts), adding each tile's partial sums for the token into
// h's FP32 sums in global memory (red.add, ping-pong buffers: a run clears the one the next
// run adds into); a grid-wide barrier; every workgroup reads h's sums, applies SiLU(gate) x up
// and quantizes h into B's layout (84 blocks); the first 112 workgroups then run stage2 for 64
// output columns of all seven experts, the staged weights from shared memory, sum the
// warpgroups' results through shared memory and write 64 BF16 outputs, no atomics.
constexpr int kHidden = 7168;
constexpr int kInter = 384;
constexpr int kStepExperts = 7;                               // 6 routed + the shared one
constexpr int kXBlocks = kHidden / 32;                        // 224
constexpr int kHBlocks = kStepExperts * kInter / 32;          // 84
constexpr int kStage1Tiles = kStepExperts * 2 * kInter / 64;  // 84 tiles of 64 gate/up rows
constexpr int kStage1PairsPerTile = kXBlocks / 2;             // 112 steps of two K blocks
constexpr int kStage2PairsPerExpert = kInter / 64;            // 6
constexpr int kOutputTiles = kHidden / 64;                    // 112
constexpr std::size_t kHSums = static_cast<std::size_t>(kStepExperts) * 2 * kInter;  // 5376
constexpr std::size_t kFullXBytes = kXBlocks * gpu::kWarpgroupBlockBytes;            // 57344
constexpr std::size_t kFullHBytes = kHBlocks * gpu::kWarpgroupBlockBytes;            // 21504
constexpr std::size_t kFullStagedBytes = 128 * 1024;
constexpr std::size_t kFullShared = kFullXBytes + kFullHBytes + kFullStagedBytes;

// Adds a tile's sums for the token (column 0: lanes 4g of each warp, rows g and g + 8 of the
// warp's 16) into h's FP32 sums.
__device__ __forceinline__ void add_tile_sums(float* h_sums, int tile, const StepSums& sums) {
    const unsigned lane = threadIdx.x % 32;
    if (lane % 4 != 0) return;
    const unsigned row = tile * 64 + ((threadIdx.x / 32) % 4) * 16 + lane / 4;
    atomicAdd(h_sums + row, sums.sum[0]);
    atomicAdd(h_sums + row + 8, sums.sum[2]);
}

template <int kThreads, int kInFlight>
__global__ void __launch_bounds__(kThreads, 1)
    one_launch_step(const uint4* __restrict__ stage1, const unsigned* __restrict__ scales1,
                    std::size_t chunks1, const uint4* __restrict__ stage2,
                    const unsigned* __restrict__ scales2, std::size_t chunks2,
                    const std::uint16_t* __restrict__ x, const float* __restrict__ topk_weights,
                    float* h_sums, std::uint16_t* out, unsigned* barrier) {
    extern __shared__ uint4 shared[];
    auto* x_blocks = reinterpret_cast<std::uint8_t*>(shared);
    std::uint8_t* h_blocks = x_blocks + kFullXBytes;
    auto* staged = reinterpret_cast<uint4*>(h_blocks + kFullHBytes);
    __shared__ alignas(4) std::uint16_t x_factors[kXBlocks];
    __shared__ alignas(4) std::uint16_t h_factors[kHBlocks];
    __shared__ float partial[kThreads / 128][64];
    constexpr int kWarpgroups = kThreads / 128;
    const int warpgroup = static_cast<int>(threadIdx.x / 128);
    const int lane128 = static_cast<int>(threadIdx.x % 128);
    const int warp = static_cast<int>(threadIdx.x / 32);

    // This run's h sums and the next run's, which this run clears (each run takes one round of
    // its own barrier counter, so the round's parity picks the buffer; workgroups of this run
    // that already arrived do not change the quotient).
    const unsigned round = *reinterpret_cast<volatile unsigned*>(barrier) / gridDim.x;
    float* sums_now = h_sums + (round % 2) * kHSums;
    float* sums_next = h_sums + ((round + 1) % 2) * kHSums;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < kHSums;
         i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        sums_next[i] = 0.0f;
    }

    const std::size_t share2 = (chunks2 + gridDim.x - 1) / gridDim.x;
    const std::size_t begin2 = smaller(chunks2, blockIdx.x * share2);
    const std::size_t end2 = smaller(chunks2, begin2 + share2);
    const std::size_t staged_here = smaller(end2 - begin2, kFullStagedBytes / 16);
    start_staging(staged, stage2 + begin2, staged_here);
    for (std::size_t i = threadIdx.x; i < (kFullXBytes + kFullHBytes) / 16; i += blockDim.x) {
        shared[i] = make_uint4(0, 0, 0, 0);
    }
    __syncthreads();
    for (int block = warp; block < kXBlocks; block += kThreads / 32) {
        const float value =
            __uint_as_float(static_cast<unsigned>(x[block * 32 + threadIdx.x % 32]) << 16);
        quantize_into_b(value, block, x_blocks, x_factors);
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const std::uint32_t x_descriptor =
        gpu::warpgroup_b_descriptor_low(static_cast<unsigned>(__cvta_generic_to_shared(x_blocks)));
    const std::uint32_t h_descriptor =
        gpu::warpgroup_b_descriptor_low(static_cast<unsigned>(__cvta_generic_to_shared(h_blocks)));
    constexpr unsigned kBlockUnits = gpu::kWarpgroupBlockBytes >> 4;
    const auto* x_factor_pairs = reinterpret_cast<const unsigned*>(x_factors);

    // Stage1: the workgroup's contiguous share of the steps, every kWarpgroups-th to a
    // warpgroup; step s is tile (s / 112) % 84, K pair s % 112 (the shared expert's FP8 tiles
    // take twice the bytes: the steps past 84 x 112 stand for them).
    const std::size_t steps1 = chunks1 / 128;
    const std::size_t share1 = (steps1 + gridDim.x - 1) / gridDim.x;
    const std::size_t first1 = smaller(steps1, blockIdx.x * share1);
    const std::size_t last1 = smaller(steps1, first1 + share1);
    StepSums sums;
    int tile = -1;
    for (std::size_t s = first1 + warpgroup; s < last1;
         s += static_cast<std::size_t>(kWarpgroups) * kInFlight) {
        uint4 loaded[kInFlight];
        unsigned loaded_scales[kInFlight];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const std::size_t step = s + static_cast<std::size_t>(u) * kWarpgroups;
            const std::size_t chunk = step * 128 + static_cast<std::size_t>(lane128);
            load_chunk(stage1, scales1, chunk, step < last1, loaded[u], loaded_scales[u]);
        }
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
            const std::size_t step = s + static_cast<std::size_t>(u) * kWarpgroups;
            if (step >= last1) break;
            // 32-bit: the division by constants is a multiplication (64-bit divides call a
            // routine).
            const auto step32 = static_cast<unsigned>(step);
            const int step_tile = static_cast<int>((step32 / kStage1PairsPerTile) % kStage1Tiles);
            if (step_tile != tile) {
                if (tile >= 0) add_tile_sums(sums_now, tile, sums);
                sums = StepSums{};
                tile = step_tile;
            }
            const unsigned pair = step32 % kStage1PairsPerTile;
            chunk_step(loaded[u], loaded_scales[u], 0, x_descriptor + pair * 2 * kBlockUnits,
                       x_factor_pairs + pair, sums);
        }
    }
    if (tile >= 0) add_tile_sums(sums_now, tile, sums);

    grid_barrier(barrier);

    // h = SiLU(gate) x up of every expert, quantized into B's layout.
    for (int block = warp; block < kHBlocks; block += kThreads / 32) {
        const int expert = block / (kInter / 32);
        const int column = (block % (kInter / 32)) * 32 + static_cast<int>(threadIdx.x % 32);
        const float gate = __ldcg(sums_now + expert * 2 * kInter + column);
        const float up = __ldcg(sums_now + expert * 2 * kInter + kInter + column);
        quantize_into_b(gate / (1.0f + __expf(-gate)) * up, block, h_blocks, h_factors);
    }
    gpu::wait_copies<0>();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (blockIdx.x >= kOutputTiles) return;

    // Stage2: step s of the share is expert (s / 6) % 7, K pair s % 6 (past 42 steps: the
    // shared expert's FP8 bytes again); the staged steps from shared memory, the rest from
    // global memory.
    const auto* h_factor_pairs = reinterpret_cast<const unsigned*>(h_factors);
    StepSums out_sums;
    const std::size_t steps2 = (end2 - begin2) / 128;
    for (std::size_t step = warpgroup; step < steps2; step += kWarpgroups) {
        const std::size_t chunk = step * 128 + static_cast<std::size_t>(lane128);
        const uint4 codes = chunk < staged_here ? staged[chunk] : __ldcs(stage2 + begin2 + chunk);
        const unsigned scales = __ldcs(scales2 + (begin2 + chunk) / 4);
        const auto step32 = static_cast<unsigned>(step);
        const unsigned expert = (step32 / kStage2PairsPerExpert) % kStepExperts;
        const unsigned block = expert * (kInter / 32) + (step32 % kStage2PairsPerExpert) * 2;
        StepSums expert_sums;
        chunk_step(codes, scales, 0, h_descriptor + block * kBlockUnits, h_factor_pairs + block / 2,
                   expert_sums);
        const float weight = topk_weights[expert];
        for (int i = 0; i < 4; ++i)
            out_sums.sum[i] = fmaf(weight, expert_sums.sum[i], out_sums.sum[i]);
    }
    if (threadIdx.x % 4 == 0) {
        const unsigned row = ((threadIdx.x / 32) % 4) * 16 + (threadIdx.x % 32) / 4;
        partial[warpgroup][row] = out_sums.sum[0];
        partial[warpgroup][row + 8] = out_sums.sum[2];
    }
    __syncthreads();
    if (threadIdx.x < 64) {
        float total = 0.0f;
        for (int w = 0; w < kWarpgroups; ++w) total += partial[w][threadIdx.x];
        out[blockIdx.x * 64 + threadIdx.x] =
            static_cast<std::uint16_t>(__float_as_uint(total) >> 16);
    }
}

// Bytes one DSV4 I384 decode step reads per stage (routed experts expected distinct among 384
// for tokens x 6 slots, plus the FP8 shared expert; codes and scales), as docs/performance.md
// derives them.
struct StepBytes {
    int tokens;
    double stage1_mb;
    double stage2_mb;
};

constexpr int kCopies = 4;
constexpr int kTimedRuns = 50;
constexpr int kWarmupRuns = 10;

}  // namespace

// A persistent kernel's workgroup of `threads` with `shared` bytes of dynamic shared memory
// fits a multiprocessor (its grid is one workgroup a multiprocessor, all resident).
template <typename Kernel>
bool fits_one_a_multiprocessor(Kernel* kernel, int threads, std::size_t shared, const char* what) {
    int fits = 0;
    if (!ok(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(shared)),
            "shared memory") ||
        !ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fits, kernel, threads, shared),
            "occupancy")) {
        return false;
    }
    if (fits < 1) {
        std::fprintf(stderr, "gpu_stream_bound: the %d-thread %s workgroup does not fit\n", threads,
                     what);
    }
    return fits >= 1;
}

int main() {
    int multiprocessors = 0;
    if (!ok(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0),
            "device attribute")) {
        return 1;
    }
    const StepBytes steps[] = {{1, 23.2, 11.6}, {4, 73.8, 36.9}, {16, 252.8, 126.4}};
    unsigned* sink = nullptr;
    unsigned* barrier = nullptr;
    cudaStream_t stream = nullptr;
    if (!ok(cudaMalloc(&sink, 64), "sink") || !ok(cudaMemset(sink, 0, 64), "sink") ||
        !ok(cudaMalloc(&barrier, 64), "barrier") || !ok(cudaMemset(barrier, 0, 64), "barrier") ||
        !ok(cudaStreamCreate(&stream), "stream")) {
        return 1;
    }
    // The one launch with the arithmetic, and the whole step in one launch: 1024 threads (64
    // registers a thread at most), 512 (128).
    auto* const compute_1024 = one_launch_compute<1024, 4>;
    auto* const compute_512 = one_launch_compute<512, 8>;
    constexpr std::size_t kComputeShared = kActivationBytes + kComputeStagedBytes;
    auto* const step_1024 = one_launch_step<1024, 4>;
    auto* const step_512 = one_launch_step<512, 8>;
    if (!fits_one_a_multiprocessor(one_launch_bytes, kOneLaunchThreads, kOneLaunchStagedBytes,
                                   "one-launch") ||
        !fits_one_a_multiprocessor(compute_1024, 1024, kComputeShared, "compute") ||
        !fits_one_a_multiprocessor(compute_512, 512, kComputeShared, "compute") ||
        !fits_one_a_multiprocessor(step_1024, 1024, kFullShared, "step") ||
        !fits_one_a_multiprocessor(step_512, 512, kFullShared, "step")) {
        return 1;
    }
    if (multiprocessors < kOutputTiles) {
        std::fprintf(stderr, "gpu_stream_bound: the one-launch step needs %d multiprocessors\n",
                     kOutputTiles);
        return 1;
    }
    std::uint16_t* token_x = nullptr;
    float* topk_weights = nullptr;
    float* h_sums = nullptr;
    std::uint16_t* step_out = nullptr;
    const std::vector<float> weights(kStepExperts, 1.0f / 6.0f);
    if (!ok(cudaMalloc(&token_x, kHidden * 2), "x") ||
        !ok(cudaMemset(token_x, 0x3F, kHidden * 2), "x") ||
        !ok(cudaMalloc(&topk_weights, kStepExperts * sizeof(float)), "top-k weights") ||
        !ok(cudaMemcpy(topk_weights, weights.data(), kStepExperts * sizeof(float),
                       cudaMemcpyHostToDevice),
            "top-k weights") ||
        !ok(cudaMalloc(&h_sums, 2 * kHSums * sizeof(float)), "h sums") ||
        !ok(cudaMemset(h_sums, 0, 2 * kHSums * sizeof(float)), "h sums") ||
        !ok(cudaMalloc(&step_out, kHidden * 2), "output")) {
        return 1;
    }
    uint4* activations = nullptr;
    if (!ok(cudaMalloc(&activations, kActivationBytes), "activations") ||
        !ok(cudaMemset(activations, 0x38, kActivationBytes), "activations")) {
        return 1;
    }
    const unsigned blocks = static_cast<unsigned>(multiprocessors * kBlocksPerMultiprocessor);
    std::printf(
        "%d multiprocessors; us per graph replay (median of %d, sources rotated over %d "
        "copies)\n",
        multiprocessors, kTimedRuns, kCopies);
    std::printf(
        "tokens  s1_MB  s2_MB  routing  +stage1  +stage2  +both  stage1_TB/s  stage2_TB/s  "
        "one_launch  one_launch_staged  staged_MB  compute_1024  compute_512  step_1024  "
        "step_512\n");
    for (const StepBytes& step : steps) {
        const std::size_t chunks1 = static_cast<std::size_t>(step.stage1_mb * 1e6) / 16;
        const std::size_t chunks2 = static_cast<std::size_t>(step.stage2_mb * 1e6) / 16;
        std::vector<uint4*> stage1(kCopies), stage2(kCopies);
        // The compute variants' E8M0 scales: a word per four chunks (2^0 each).
        std::vector<unsigned*> scales1(kCopies), scales2(kCopies);
        const std::size_t scale_bytes1 = (chunks1 / 4 + 1) * 4;
        const std::size_t scale_bytes2 = (chunks2 / 4 + 1) * 4;
        for (int k = 0; k < kCopies; ++k) {
            if (!ok(cudaMalloc(&stage1[k], chunks1 * 16), "stage1 bytes") ||
                !ok(cudaMemset(stage1[k], k + 1, chunks1 * 16), "stage1 bytes") ||
                !ok(cudaMalloc(&stage2[k], chunks2 * 16), "stage2 bytes") ||
                !ok(cudaMemset(stage2[k], k + 7, chunks2 * 16), "stage2 bytes") ||
                !ok(cudaMalloc(&scales1[k], scale_bytes1), "stage1 scales") ||
                !ok(cudaMemset(scales1[k], 0x7F, scale_bytes1), "stage1 scales") ||
                !ok(cudaMalloc(&scales2[k], scale_bytes2), "stage2 scales") ||
                !ok(cudaMemset(scales2[k], 0x7F, scale_bytes2), "stage2 scales")) {
                return 1;
            }
        }
        const std::size_t staged_chunks = kOneLaunchStagedBytes / 16;
        double median_us[10] = {};
        // routing; +stage1; +stage2; +both; one launch; one launch with stage2 staged; the
        // latter with the arithmetic, 1024 and 512 threads; the whole step in one launch, 1024
        // and 512 threads
        for (int variant = 0; variant < 10; ++variant) {
            std::vector<cudaGraphExec_t> graphs(kCopies);
            for (int k = 0; k < kCopies; ++k) {
                cudaGraph_t graph = nullptr;
                if (!ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "capture")) {
                    return 1;
                }
                if (variant < 4) routing_stand_in<<<1, 32, 0, stream>>>(sink);
                if (variant >= 8) {
                    // Its own barrier counter (barrier + 8): its rounds alternate h's buffers.
                    (variant == 8 ? step_1024
                                  : step_512)<<<static_cast<unsigned>(multiprocessors),
                                                variant == 8 ? 1024 : 512, kFullShared, stream>>>(
                        stage1[k], scales1[k], chunks1, stage2[k], scales2[k], chunks2, token_x,
                        topk_weights, h_sums, step_out, barrier + 8);
                }
                if (variant == 6 || variant == 7) {
                    const std::size_t compute_staged = kComputeStagedBytes / 16;
                    if (variant == 6) {
                        compute_1024<<<static_cast<unsigned>(multiprocessors), 1024, kComputeShared,
                                       stream>>>(stage1[k], scales1[k], chunks1, stage2[k],
                                                 scales2[k], chunks2, activations, compute_staged,
                                                 barrier, sink);
                    } else {
                        compute_512<<<static_cast<unsigned>(multiprocessors), 512, kComputeShared,
                                      stream>>>(stage1[k], scales1[k], chunks1, stage2[k],
                                                scales2[k], chunks2, activations, compute_staged,
                                                barrier, sink);
                    }
                }
                if (variant == 4 || variant == 5) {
                    const bool staged = variant == 5;
                    one_launch_bytes<<<static_cast<unsigned>(multiprocessors), kOneLaunchThreads,
                                       staged ? kOneLaunchStagedBytes : 0, stream>>>(
                        stage1[k], chunks1, stage2[k], chunks2, staged ? staged_chunks : 0, barrier,
                        sink);
                }
                if (variant == 1 || variant == 3) {
                    read_bytes<<<blocks, kThreads, 0, stream>>>(stage1[k], chunks1, sink);
                }
                if (variant == 2 || variant == 3) {
                    read_bytes<<<blocks, kThreads, 0, stream>>>(stage2[k], chunks2, sink);
                }
                if (!ok(cudaStreamEndCapture(stream, &graph), "capture") ||
                    !ok(cudaGraphInstantiate(&graphs[k], graph, 0), "instantiate") ||
                    !ok(cudaGraphDestroy(graph), "graph")) {
                    return 1;
                }
            }
            cudaEvent_t start = nullptr, stop = nullptr;
            if (!ok(cudaEventCreate(&start), "event") || !ok(cudaEventCreate(&stop), "event")) {
                return 1;
            }
            std::vector<float> us;
            for (int run = 0; run < kWarmupRuns + kTimedRuns; ++run) {
                float ms = 0.0f;
                if (!ok(cudaEventRecord(start, stream), "record") ||
                    !ok(cudaGraphLaunch(graphs[run % kCopies], stream), "replay") ||
                    !ok(cudaEventRecord(stop, stream), "record") ||
                    !ok(cudaEventSynchronize(stop), "sync") ||
                    !ok(cudaEventElapsedTime(&ms, start, stop), "elapsed")) {
                    return 1;
                }
                if (run >= kWarmupRuns) us.push_back(ms * 1000.0f);
            }
            std::sort(us.begin(), us.end());
            median_us[variant] = us[us.size() / 2];
            for (cudaGraphExec_t graph : graphs) cudaGraphExecDestroy(graph);
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
        }
        const double staged_mb = std::min(
            step.stage2_mb, static_cast<double>(multiprocessors) * kOneLaunchStagedBytes / 1e6);
        std::printf(
            "%6d  %5.1f  %5.1f  %7.1f  %7.1f  %7.1f  %5.1f  %11.2f  %11.2f  %10.1f  %17.1f  "
            "%9.1f  %12.1f  %11.1f  %9.1f  %8.1f\n",
            step.tokens, step.stage1_mb, step.stage2_mb, median_us[0], median_us[1], median_us[2],
            median_us[3], step.stage1_mb / (median_us[1] - median_us[0]),
            step.stage2_mb / (median_us[2] - median_us[0]), median_us[4], median_us[5], staged_mb,
            median_us[6], median_us[7], median_us[8], median_us[9]);
        for (int k = 0; k < kCopies; ++k) {
            cudaFree(stage1[k]);
            cudaFree(stage2[k]);
            cudaFree(scales1[k]);
            cudaFree(scales2[k]);
        }
    }
    return 0;
}
