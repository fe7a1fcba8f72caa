#pragma once

// Small token tiles (gpu/matrix_gemm.hpp) whose warps share each K step's activations. The N
// warps of a K-warp group (stage1's waves) stream the same K range against the same token rows;
// loading the fragments each for itself, every warp waited on the first one's L2 latency at
// every step (docs/performance.md: the K loop with its activations always L1 hits, 7-12 %
// faster at 16-256 DSV4 tokens). Here each step's fragments and scales are copied (cp.async)
// once into the group's ring in shared memory, kStages - 1 steps ahead with the weights, each
// warp copying a share; one named barrier per step makes the step's copies visible to the
// group and frees the slot the next copies overwrite. The barrier ties the group's warps
// together, which costs more than it saves with four K warps or below a few routed rows per
// expert (measured; the host decides: matrix_stage1_stages_activations). NVIDIA only.
//
// Ring: codes [stage][P][TG][32 lanes] of 16 bytes, then scales [stage][P][TG][8 rows] of 4
// bytes (a pair's two BF16 factors of one token row).

#include <cstdint>

#include "gpu/matrix_args.hpp"
#include "gpu/matrix_gemm.hpp"
#include "gpu/matrix_layout.hpp"

namespace fhmoe::kernels::gpu {

// A group's ring (matrix_staged_activation_ring_bytes has the same size for the host).
template <int TG, int P, int kStages>
struct StagedActivationRing {
    static constexpr int kCodeBytes = kStages * P * TG * 32 * kLaneBytes;
    static constexpr int kBytes = kCodeBytes + kStages * P * TG * 8 * 4;
    static_assert(kBytes == matrix_staged_activation_ring_bytes(P, TG * 8, kStages));
};

// A warp's copies into its group's ring: chunk c = tg * P + i (token group tg, pair i of a
// step) is copied by warp c % N; its lanes copy their own fragments, lanes 0-7 the scales of
// the group's row `lane`.
template <int TG, int P, int kStages>
struct ActivationCopies {
    unsigned codes_at[TG] = {};  // byte offset of this lane's fragment of group tg, next pair
    unsigned scale_at[TG] = {};  // element offset of row (lane & 7)'s factors, next pair
    unsigned mine = 0;           // bit c: chunk c is this warp's
    unsigned ring_codes;         // shared address of this lane's chunk: slot 0, pair 0, group 0
    unsigned ring_scales;        // of row (lane & 7)'s scales: slot 0, pair 0, group 0

    __device__ ActivationCopies(const WarpTileOperands& op, std::int64_t first, int lane) {
        const std::int64_t blocks = op.k / 32;
#pragma unroll
        for (int c = 0; c < TG * P; ++c) {
            if (c % op.sharing_warps == op.share) mine |= 1u << c;
        }
#pragma unroll
        for (int tg = 0; tg < TG; ++tg) {
            if (tg < op.groups) {
                const ActivationRow row = activation_row(op, tg, lane);
                codes_at[tg] =
                    static_cast<unsigned>(row.codes - op.activations + first * (4 * kLaneBytes));
                const int scale_row = op.rows[tg * 8 + (lane & 7)];
                scale_at[tg] = static_cast<unsigned>(scale_row * blocks + 2 * first);
            }
        }
        const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(op.activation_ring));
        ring_codes = base + lane * kLaneBytes;
        ring_scales = base + StagedActivationRing<TG, P, kStages>::kCodeBytes + (lane & 7) * 4;
    }
};

template <int TG, int P, int kStages, bool kFull>
__device__ __forceinline__ void copy_activation_step(ActivationCopies<TG, P, kStages>& a,
                                                     const WarpTileOperands& op, int slot,
                                                     int count, int lane) {
#pragma unroll
    for (int c = 0; c < TG * P; ++c) {
        const int tg = c / P;
        const int i = c % P;
        if (((a.mine >> c) & 1u) == 0 || tg >= op.groups) continue;
        if (!kFull && i >= count) continue;
        const int chunk = (slot * P + i) * TG + tg;
        copy_async_16_to(a.ring_codes + chunk * kWarpTileBytes,
                         op.activations + a.codes_at[tg] + i * (4 * kLaneBytes));
        if (lane < 8) {
            copy_async_4_to(a.ring_scales + chunk * 32,
                            op.activation_scales + a.scale_at[tg] + 2 * i);
        }
    }
#pragma unroll
    for (int tg = 0; tg < TG; ++tg) {
        a.codes_at[tg] += P * (4 * kLaneBytes);
        a.scale_at[tg] += 2 * P;
    }
}

// multiply_step with the step's activations from the group's ring.
template <int TG, int P, int kStages, bool kFp4, bool kFull>
__device__ __forceinline__ void multiply_staged_step(float (&acc)[TG][4],
                                                     const WarpTileOperands& op, int slot,
                                                     int count) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int t = lane & 3;
    const uint4* act_codes = reinterpret_cast<const uint4*>(op.activation_ring);
    const uint2* act_scales = reinterpret_cast<const uint2*>(
        op.activation_ring + StagedActivationRing<TG, P, kStages>::kCodeBytes);
    uint4 codes[P][kFp4 ? 1 : 2];
    std::uint32_t scales[P];
    read_weight_step<P, kStages, kFp4, kFull>(op, slot, count, codes, scales);
#pragma unroll
    for (int i = 0; i < P; ++i) {
        if (!kFull && i >= count) break;
        std::uint32_t a[2][2][4];
        float scale_g[2];
        float scale_g8[2];
        pair_weights<kFp4>(codes[i], scales[i], a, scale_g, scale_g8);
#pragma unroll
        for (int tg = 0; tg < TG; ++tg) {
            if (tg >= op.groups) break;
            const int chunk = (slot * P + i) * TG + tg;
            ActivationPair b;
            b.codes = act_codes[chunk * 32 + lane];
            // Rows 2t and 2t + 1: the lane's two token columns.
            const uint2 pair_scales = act_scales[chunk * 4 + t];
            b.scale0 = pair_scales.x;
            b.scale1 = pair_scales.y;
            multiply_pair<TG>(acc, tg, a, scale_g, scale_g8, b);
        }
    }
}

// accumulate_pairs with the activations staged once per step for the warp's group. Every warp
// of the group calls it with the same range (the barriers count on it). The activations must
// be readable from the first copy on (op.wait_before_reads is not honoured: stage1 waits for
// the routing at its start).
template <int TG, int P, int kStages, bool kFp4>
__device__ __forceinline__ void accumulate_pairs_staged(float (&acc)[TG][4],
                                                        const WarpTileOperands& op,
                                                        std::int64_t first, std::int64_t end) {
    if (first >= end) return;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int threads = op.sharing_warps * 32;
    const int pairs = static_cast<int>(end - first);
    const int full_steps = pairs / P;
    const int rest = pairs - full_steps * P;
    LaneCursors<TG, P, kStages, kFp4> c(op, first, lane);
    ActivationCopies<TG, P, kStages> a(op, first, lane);
    int copy_slot = 0;
    auto next_copy_slot = [&] {
        commit_copies();
        copy_slot = copy_slot + 1 == kStages ? 0 : copy_slot + 1;
    };
    auto issue_full = [&] {
        copy_step<TG, P, kStages, kFp4, true>(c, copy_slot, P);
        copy_activation_step<TG, P, kStages, true>(a, op, copy_slot, P, lane);
        next_copy_slot();
    };
    auto issue = [&](int s) {
        if (s < full_steps) {
            issue_full();
            return;
        }
        if (s == full_steps && rest > 0) {
            copy_step<TG, P, kStages, kFp4, false>(c, copy_slot, rest);
            copy_activation_step<TG, P, kStages, false>(a, op, copy_slot, rest, lane);
        }
        next_copy_slot();
    };
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) issue(s);
    int slot = 0;
    int step = 0;
    // Steady state: the step kStages - 1 ahead is a full one (as accumulate_pairs_warpgroup).
    for (; step + kStages - 1 < full_steps; ++step) {
        wait_copies<kStages - 2>();
        group_barrier(op.barrier, threads);
        issue_full();
        multiply_staged_step<TG, P, kStages, kFp4, true>(acc, op, slot, P);
        slot = slot + 1 == kStages ? 0 : slot + 1;
    }
    for (; step < full_steps; ++step) {
        wait_copies<kStages - 2>();
        group_barrier(op.barrier, threads);
        issue(step + kStages - 1);
        multiply_staged_step<TG, P, kStages, kFp4, true>(acc, op, slot, P);
        slot = slot + 1 == kStages ? 0 : slot + 1;
    }
    if (rest > 0) {
        wait_copies<kStages - 2>();
        group_barrier(op.barrier, threads);
        multiply_staged_step<TG, P, kStages, kFp4, false>(acc, op, slot, rest);
    }
    wait_copies<0>();
    // The group's next K loop copies into slots the others may still be reading.
    group_barrier(op.barrier, threads);
    apply_weight_factor<TG>(acc, op.weight_factor);
}

}  // namespace fhmoe::kernels::gpu
