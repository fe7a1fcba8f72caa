#pragma once

// One warp's share of a large-token-tile GEMM (tile_m >= kMatrixSharedTileM): a 16-row weight
// tile against some of the tile's groups of 8 activation rows, over a range of K pairs. Per K
// step every thread of the workgroup copies part of the step's activation rows into one ring
// in shared memory, as BF16 values with their MXFP8 scales already applied
// (gpu/matrix_layout.hpp), and each warp converts its weight fragment to BF16 with its E8M0
// scales applied once for all its groups. Both conversions are exact (at most 4 significant
// bits into BF16's 8, FP32's exponent range), so the instructions accumulate straight into
// FP32 with no per-block scale products: per token group and pair a warp spends 2 shared loads
// and 4 BF16 instructions, where the small tiles' kernel (gpu/matrix_gemm.hpp) spends ~40; the
// weight conversion is the bulk (Nsight Compute at 2048 DSV4 tokens: 928 M warp instructions
// for stage1, 1.41 G with 16-row tiles; docs/performance.md): FP4 words through BF16 byte
// tables and one BF16 scale multiplication per pair (gpu/mma_fragments.hpp), the FP8 shared
// expert as FP16 codes times FP32 scales packed to BF16. Warps beyond the weight tiles take
// other token groups of the same weight tile (more warps to hide latency, no K reduction).
// NVIDIA only.
//
// Synchronization: the weight copies of a step and the activation copies of the same step are
// one cp.async group per thread; a workgroup barrier after each wait makes every thread's
// copies of the step visible and frees the slot the next copies overwrite.

#include <cstdint>

#include "gpu/matrix_args.hpp"
#include "gpu/matrix_gemm.hpp"
#include "gpu/matrix_layout.hpp"
#include "gpu/mma_fragments.hpp"

namespace fhmoe::kernels::gpu {

struct SharedTileOperands {
    const std::uint8_t* weights = nullptr;        // the tile's first pair (FP4) or block (FP8)
    const std::uint8_t* weight_scales = nullptr;  // the tile's first pair of scales
    const std::uint16_t* activations = nullptr;   // BF16 values, K columns
    std::int64_t k = 0;
    const int* rows = nullptr;  // shared memory: the activation row of each of the tile's rows
    int groups = 0;             // token groups of the tile holding a real row (all are copied)
    int first_group = 0;        // this warp's groups: [first_group, first_group + warp_groups)
    int warp_groups = 0;        // real groups among them (the rest are padding and skipped)
    unsigned char* weight_ring = nullptr;  // this warp's (matrix_shared_weight_ring_bytes)
    uint4* activation_ring = nullptr;      // [stage][P][2 blocks][tile_rows][4 t]
};

// The activation copies of `P` pairs from `pair` (those before `end`) into ring slot `slot`:
// every real row's two 64-byte blocks per pair, 16 bytes per copy, spread over the workgroup.
// Chunks are numbered over the whole tile (kTileRows, a power of two) so that a chunk's pair,
// row and lane come from shifts; the copies of padding rows are skipped.
template <int P, int kTileRows>
__device__ __forceinline__ void issue_activation_copies(const SharedTileOperands& op, int slot,
                                                        std::int64_t pair, std::int64_t end) {
    constexpr int kPerPair = kTileRows * 8;  // 16-byte chunks: 2 blocks x 4 shares per row
    const int real_rows = op.groups * 8;
    const std::int64_t blocks = op.k / 32;
    const int threads = static_cast<int>(blockDim.x);
#pragma unroll
    for (int i = 0; i < P; ++i) {
        if (pair + i >= end) break;
        const std::uint16_t* pair_base = op.activations + 2 * (pair + i) * 32;
        uint4* slot_base = op.activation_ring + (slot * P + i) * 2 * kTileRows * 4;
        for (int c = static_cast<int>(threadIdx.x); c < kPerPair; c += threads) {
            const int r = c >> 3;
            if (r >= real_rows) break;  // c only grows
            const int b = (c >> 2) & 1;
            const int t = c & 3;
            copy_async_16(slot_base + (b * kTileRows + r) * 4 + t,
                          pair_base + (op.rows[r] * blocks + b) * 32 + t * 8);
        }
    }
}

// This lane's weight fragments of one pair as BF16 with the weight scales applied:
// a[block][instruction] as weight_fragments (gpu/matrix_gemm.hpp).
template <bool kFp4>
__device__ __forceinline__ void scaled_weight_fragments(const uint4* q, std::uint32_t scales,
                                                        std::uint32_t (&a)[2][2][4]) {
    if constexpr (kFp4) {
#pragma unroll
        for (int block = 0; block < 2; ++block) {
            // Each scale byte as a BF16 pair (code << 7 in both halves).
            const std::uint32_t scale_g = ((scales >> (8 * block)) & 0xFFu) * 0x00800080u;
            const std::uint32_t scale_g8 = ((scales >> (8 * (2 + block))) & 0xFFu) * 0x00800080u;
            std::uint32_t row_g[4];
            std::uint32_t row_g8[4];
            fp4x8_to_scaled_bf16x8(block == 0 ? q[0].x : q[0].z, scale_g, row_g);
            fp4x8_to_scaled_bf16x8(block == 0 ? q[0].y : q[0].w, scale_g8, row_g8);
            place_block_fragments(row_g, row_g8, a[block]);
        }
        return;
    }
    std::uint32_t f16[2][2][4];
    weight_fragments<kFp4>(q, f16);
#pragma unroll
    for (int block = 0; block < 2; ++block) {
        const float scale_g = e8m0_float((scales >> (8 * block)) & 0xFF);
        const float scale_g8 = e8m0_float((scales >> (8 * (2 + block))) & 0xFF);
#pragma unroll
        for (int instruction = 0; instruction < 2; ++instruction) {
            a[block][instruction][0] = scaled_f16x2_to_bf16x2(f16[block][instruction][0], scale_g);
            a[block][instruction][1] = scaled_f16x2_to_bf16x2(f16[block][instruction][1], scale_g8);
            a[block][instruction][2] = scaled_f16x2_to_bf16x2(f16[block][instruction][2], scale_g);
            a[block][instruction][3] = scaled_f16x2_to_bf16x2(f16[block][instruction][3], scale_g8);
        }
    }
}

// Pairs [first, end) in steps of P pairs into acc[TG] (this warp's groups of a kTileRows tile).
// Every warp of the workgroup calls it with the same range (the barriers count on it).
template <int TG, int kTileRows, int P, int kStages, bool kFp4>
__device__ __forceinline__ void accumulate_pairs_shared(float (&acc)[TG][4],
                                                        const SharedTileOperands& op,
                                                        std::int64_t first, std::int64_t end) {
    if (first >= end) return;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const WeightRing<P, kStages> ring(op.weight_ring);
    WarpTileOperands weights;  // what issue_weight_copies reads
    weights.weights = op.weights;
    weights.weight_scales = op.weight_scales;
    const std::int64_t steps = (end - first + P - 1) / P;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        issue_weight_copies<P, kStages, kFp4>(ring, weights, s, first + s * P, end, lane);
        issue_activation_copies<P, kTileRows>(op, s, first + s * P, end);
        commit_copies();
    }
    for (std::int64_t step = 0; step < steps; ++step) {
        const std::int64_t pair = first + step * P;
        const int slot = static_cast<int>(step % kStages);
        wait_copies<kStages - 2>();
        __syncthreads();
        const int next = static_cast<int>((step + kStages - 1) % kStages);
        issue_weight_copies<P, kStages, kFp4>(ring, weights, next, first + (step + kStages - 1) * P,
                                              end, lane);
        issue_activation_copies<P, kTileRows>(op, next, first + (step + kStages - 1) * P, end);
        commit_copies();
#pragma unroll
        for (int i = 0; i < P; ++i) {
            if (pair + i >= end || op.warp_groups == 0) break;
            // Read from the ring only now (the slot stays until the next step's barrier):
            // fewer registers live across the step.
            uint4 codes[kFp4 ? 1 : 2];
            codes[0] = ring.codes[((slot * P + i) * 2) * 32 + lane];
            if constexpr (!kFp4) codes[1] = ring.codes[((slot * P + i) * 2 + 1) * 32 + lane];
            std::uint32_t a[2][2][4];
            scaled_weight_fragments<kFp4>(codes, ring.scales[(slot * P + i) * 32 + lane], a);
#pragma unroll
            for (int block = 0; block < 2; ++block) {
                const uint4* b = op.activation_ring + ((slot * P + i) * 2 + block) * kTileRows * 4 +
                                 op.first_group * 32 + lane;
#pragma unroll
                for (int tg = 0; tg < TG; ++tg) {
                    if (tg >= op.warp_groups) break;
                    const uint4 v = b[tg * 32];
                    mma_bf16(acc[tg], a[block][0], v.x, v.y);
                    mma_bf16(acc[tg], a[block][1], v.z, v.w);
                }
            }
        }
    }
    wait_copies<0>();
    // The next K loop's first copies overwrite slots other warps may still be reading.
    __syncthreads();
}

}  // namespace fhmoe::kernels::gpu
