#pragma once

// One warp's share of a matrix-path GEMM: a 16-row weight tile (FP4 or FP8, E8M0 scales)
// against TG groups of 8 activation rows (MXFP8), over a range of K pairs, into FP32
// accumulators. Per 32-wide scale block the two matrix instructions start from zero and the
// block's weight and activation scales are applied to their sum, as MX requires.
// Layouts: gpu/matrix_layout.hpp; conversions: gpu/mma_fragments.hpp. NVIDIA only.

#include <cstdint>

#include "gpu/matrix_args.hpp"
#include "gpu/matrix_layout.hpp"
#include "gpu/mma_fragments.hpp"

namespace fhmoe::kernels::gpu {

struct WarpTileOperands {
    const std::uint8_t* weights = nullptr;        // the tile's first pair (FP4) or block (FP8)
    const std::uint8_t* weight_scales = nullptr;  // the tile's first pair of scales
    float weight_factor = 1.0f;                   // 2^14 for FP4 (their FP16 codes are scaled down)
    const std::uint8_t* activations = nullptr;    // mma layout, K columns
    const std::uint8_t* activation_scales = nullptr;  // [row][K/32]
    std::int64_t k = 0;
    const int* rows = nullptr;      // shared memory: the activation row of each token column
    int groups = 0;                 // token groups holding a real row (the rest are padding)
    unsigned char* ring = nullptr;  // this warp's ring (matrix_ring_bytes_per_warp)
};

__device__ __forceinline__ uint4 load_lane16(const std::uint8_t* p) {
    return __ldg(reinterpret_cast<const uint4*>(p));
}

// The weight fragments of one pair (both blocks) as FP16 registers: a[block][instruction].
template <bool kFp4>
__device__ __forceinline__ void weight_fragments(const uint4* q, std::uint32_t (&a)[2][2][4]) {
#pragma unroll
    for (int block = 0; block < 2; ++block) {
        std::uint32_t row_g[4];
        std::uint32_t row_g8[4];
        if constexpr (kFp4) {
            fp4x8_to_f16x8(block == 0 ? q[0].x : q[0].z, row_g);
            fp4x8_to_f16x8(block == 0 ? q[0].y : q[0].w, row_g8);
        } else {
            fp8x8_to_f16x8(q[block].x, q[block].y, row_g);
            fp8x8_to_f16x8(q[block].z, q[block].w, row_g8);
        }
        a[block][0][0] = row_g[0];
        a[block][0][1] = row_g8[0];
        a[block][0][2] = row_g[1];
        a[block][0][3] = row_g8[1];
        a[block][1][0] = row_g[2];
        a[block][1][1] = row_g8[2];
        a[block][1][2] = row_g[3];
        a[block][1][3] = row_g8[3];
    }
}

// The weight stream goes through a per-warp ring of shared memory filled by asynchronous
// copies (cp.async), kStages steps deep: the bytes in flight per warp no longer cost
// registers, so a multiprocessor keeps enough of them in flight to reach memory bandwidth.
// Each lane copies and later reads only its own 16-byte chunks, so completing its own copy
// groups is all the ordering a lane needs. Sized for FP8 (two chunks per pair); FP4 uses one.

__device__ __forceinline__ void copy_async_16(void* shared, const void* global) {
    const auto address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global));
}

__device__ __forceinline__ void copy_async_4(void* shared, const void* global) {
    const auto address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(address), "l"(global));
}

__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }

template <int kPending>
__device__ __forceinline__ void wait_copies() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// A warp's ring: codes [stage][P][2 chunks][32 lanes] then scales [stage][P][32 lanes].
template <int P, int kStages>
struct WeightRing {
    uint4* codes;
    std::uint32_t* scales;
    __device__ explicit WeightRing(unsigned char* base)
        : codes(reinterpret_cast<uint4*>(base)),
          scales(reinterpret_cast<std::uint32_t*>(base + kStages * P * 2 * 32 * kLaneBytes)) {}
};

// Starts the copies of the P pairs from `pair` (those before `end`) into ring slot `slot`.
template <int P, int kStages, bool kFp4>
__device__ __forceinline__ void issue_weight_copies(const WeightRing<P, kStages>& ring,
                                                    const WarpTileOperands& op, int slot,
                                                    std::int64_t pair, std::int64_t end, int lane) {
    const int g = lane >> 2;
#pragma unroll
    for (int i = 0; i < P; ++i) {
        if (pair + i >= end) break;
        uint4* chunk = ring.codes + ((slot * P + i) * 2) * 32 + lane;
        if constexpr (kFp4) {
            copy_async_16(chunk, op.weights + ((pair + i) * 32 + lane) * kLaneBytes);
        } else {
            copy_async_16(chunk, op.weights + ((2 * (pair + i)) * 32 + lane) * kLaneBytes);
            copy_async_16(chunk + 32, op.weights + ((2 * (pair + i) + 1) * 32 + lane) * kLaneBytes);
        }
        copy_async_4(ring.scales + (slot * P + i) * 32 + lane,
                     op.weight_scales + ((pair + i) * 8 + g) * 4);
    }
}

// The same as one copy group (empty past the end, so the group count stays in step).
template <int P, int kStages, bool kFp4>
__device__ __forceinline__ void issue_weight_step(const WeightRing<P, kStages>& ring,
                                                  const WarpTileOperands& op, int slot,
                                                  std::int64_t pair, std::int64_t end, int lane) {
    issue_weight_copies<P, kStages, kFp4>(ring, op, slot, pair, end, lane);
    commit_copies();
}

// One token group's activation fragment and the scales of the two token columns a lane
// accumulates, for one pair.
struct ActivationPair {
    uint4 codes;
    std::uint32_t scale0;
    std::uint32_t scale1;
};

// Where a lane's activation fragment and its two token columns' scales start, for one token
// group: fixed for a whole K loop, so small tiles compute them once (kHoistRows below).
struct ActivationRow {
    const std::uint8_t* codes;
    const std::uint8_t* scale0;
    const std::uint8_t* scale1;
};

__device__ __forceinline__ ActivationRow activation_row(const WarpTileOperands& op, int tg,
                                                        int lane) {
    const int g = lane >> 2;
    const int t = lane & 3;
    const std::int64_t blocks = op.k / 32;
    const int row_b = op.rows[tg * 8 + g];
    const int row_c0 = op.rows[tg * 8 + 2 * t];
    const int row_c1 = op.rows[tg * 8 + 2 * t + 1];
    return {op.activations + activation_pair_offset(row_b, 0, op.k) + t * kLaneBytes,
            op.activation_scales + row_c0 * blocks, op.activation_scales + row_c1 * blocks};
}

__device__ __forceinline__ ActivationPair load_activation_pair(const ActivationRow& row,
                                                               std::int64_t pair) {
    ActivationPair a;
    a.codes = load_lane16(row.codes + pair * (4 * kLaneBytes));
    a.scale0 = __ldg(reinterpret_cast<const unsigned short*>(row.scale0 + 2 * pair));
    a.scale1 = __ldg(reinterpret_cast<const unsigned short*>(row.scale1 + 2 * pair));
    return a;
}

__device__ __forceinline__ ActivationPair load_activation_pair(const WarpTileOperands& op, int tg,
                                                               std::int64_t pair, int lane) {
    return load_activation_pair(activation_row(op, tg, lane), pair);
}

template <int TG>
__device__ __forceinline__ void multiply_pair(float (&acc)[TG][4], int tg,
                                              const std::uint32_t (&a)[2][2][4],
                                              const float (&scale_g)[2], const float (&scale_g8)[2],
                                              const ActivationPair& b) {
#pragma unroll
    for (int block = 0; block < 2; ++block) {
        const std::uint32_t w0 = block == 0 ? b.codes.x : b.codes.z;
        const std::uint32_t w1 = block == 0 ? b.codes.y : b.codes.w;
        float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        mma_f16(sum, a[block][0], fp8x2_to_f16x2(w0, false), fp8x2_to_f16x2(w0, true));
        mma_f16(sum, a[block][1], fp8x2_to_f16x2(w1, false), fp8x2_to_f16x2(w1, true));
        const float s0 = e8m0_float((b.scale0 >> (8 * block)) & 0xFF);
        const float s1 = e8m0_float((b.scale1 >> (8 * block)) & 0xFF);
        acc[tg][0] += sum[0] * (scale_g[block] * s0);
        acc[tg][1] += sum[1] * (scale_g[block] * s1);
        acc[tg][2] += sum[2] * (scale_g8[block] * s0);
        acc[tg][3] += sum[3] * (scale_g8[block] * s1);
    }
}

// Pairs [first, end) in steps of P pairs (the last step may be short). Weights arrive through
// the warp's ring (above); this step's activation fragments, shared by every weight tile and
// mostly served by the cache, are all requested before the first instruction uses one when
// they fit in registers. Token groups at or past op.groups are padding only and are skipped.
template <int TG, int P, int kStages, bool kFp4>
__device__ __forceinline__ void accumulate_pairs(float (&acc)[TG][4], const WarpTileOperands& op,
                                                 std::int64_t first, std::int64_t end) {
    if (first >= end) return;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    constexpr bool kPrefetchActivations = TG * P <= 8;
    const WeightRing<P, kStages> ring(op.ring);
    const std::int64_t steps = (end - first + P - 1) / P;
    // Small token tiles keep each group's activation addresses in registers for the loop.
    constexpr bool kHoistRows = TG <= 4;
    ActivationRow rows[kHoistRows ? TG : 1];
    if constexpr (kHoistRows) {
#pragma unroll
        for (int tg = 0; tg < TG; ++tg) rows[tg] = activation_row(op, tg, lane);
    }
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        issue_weight_step<P, kStages, kFp4>(ring, op, s, first + s * P, end, lane);
    }
    for (std::int64_t step = 0; step < steps; ++step) {
        const std::int64_t pair = first + step * P;
        const int slot = static_cast<int>(step % kStages);
        wait_copies<kStages - 2>();
        uint4 codes[P][kFp4 ? 1 : 2];
        std::uint32_t scales[P];
#pragma unroll
        for (int i = 0; i < P; ++i) {
            codes[i][0] = ring.codes[((slot * P + i) * 2) * 32 + lane];
            if constexpr (!kFp4) codes[i][1] = ring.codes[((slot * P + i) * 2 + 1) * 32 + lane];
            scales[i] = ring.scales[(slot * P + i) * 32 + lane];
        }
        issue_weight_step<P, kStages, kFp4>(ring, op,
                                            static_cast<int>((step + kStages - 1) % kStages),
                                            first + (step + kStages - 1) * P, end, lane);
        ActivationPair staged[kPrefetchActivations ? P : 1][kPrefetchActivations ? TG : 1];
        if constexpr (kPrefetchActivations) {
#pragma unroll
            for (int i = 0; i < P; ++i) {
#pragma unroll
                for (int tg = 0; tg < TG; ++tg) {
                    if (tg < op.groups && pair + i < end) {
                        if constexpr (kHoistRows) {
                            staged[i][tg] = load_activation_pair(rows[tg], pair + i);
                        } else {
                            staged[i][tg] = load_activation_pair(op, tg, pair + i, lane);
                        }
                    }
                }
            }
        }
#pragma unroll
        for (int i = 0; i < P; ++i) {
            if (pair + i >= end) break;
            std::uint32_t a[2][2][4];
            weight_fragments<kFp4>(codes[i], a);
            float scale_g[2];
            float scale_g8[2];
#pragma unroll
            for (int block = 0; block < 2; ++block) {
                scale_g[block] = e8m0_float((scales[i] >> (8 * block)) & 0xFF) * op.weight_factor;
                scale_g8[block] =
                    e8m0_float((scales[i] >> (8 * (2 + block))) & 0xFF) * op.weight_factor;
            }
            // Larger tiles request one pair's fragments of every group before the first use
            // (up to 8 groups), the largest one group at a time.
            constexpr bool kBatchPair = !kPrefetchActivations && TG <= 8;
            ActivationPair batch[kBatchPair ? TG : 1];
            if constexpr (kBatchPair) {
#pragma unroll
                for (int tg = 0; tg < TG; ++tg) {
                    if (tg < op.groups) {
                        if constexpr (kHoistRows) {
                            batch[tg] = load_activation_pair(rows[tg], pair + i);
                        } else {
                            batch[tg] = load_activation_pair(op, tg, pair + i, lane);
                        }
                    }
                }
            }
#pragma unroll
            for (int tg = 0; tg < TG; ++tg) {
                if (tg >= op.groups) break;
                if constexpr (kPrefetchActivations) {
                    multiply_pair<TG>(acc, tg, a, scale_g, scale_g8, staged[i][tg]);
                } else if constexpr (kBatchPair) {
                    multiply_pair<TG>(acc, tg, a, scale_g, scale_g8, batch[tg]);
                } else {
                    multiply_pair<TG>(acc, tg, a, scale_g, scale_g8,
                                      load_activation_pair(op, tg, pair + i, lane));
                }
            }
        }
    }
    wait_copies<0>();  // no copy may still be landing when the ring is reused
}

// The whole range [first, end).
template <int TG, int P, int kStages, bool kFp4>
__device__ __forceinline__ void accumulate_range(float (&acc)[TG][4], const WarpTileOperands& op,
                                                 std::int64_t first, std::int64_t end) {
    accumulate_pairs<TG, P, kStages, kFp4>(acc, op, first, end);
}

}  // namespace fhmoe::kernels::gpu
