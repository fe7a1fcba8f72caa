#pragma once

// Stage1's small-tile K loop on Hopper's warpgroup matrix instruction (wgmma, sm_90a): FP8 x
// FP8 with FP32 results, where the mma.sync loop (gpu/matrix_gemm.hpp) converts both operands
// to FP16 for HMMA. A warpgroup (four consecutive warps: the `waves` warps of one K warp, four
// or eight of them) multiplies its four 16-row weight tiles (64 rows, the instruction's M) by
// one token group (8 columns, its N) per 32-wide scale block (its K):
//   A, the weights, from registers: FP4 e2m1 codes become e4m3 codes by bit moves (7
//     instructions per 8 weights, where FP16 took 11: the codes come out as the value times
//     2^-6, a factor applied once per tile after its K loop, kFp4AsE4m3Factor), FP8 weights
//     as they are stored; no conversion of the activations at all;
//   B, the token group's MXFP8 activations, from shared memory in the instruction's
//     no-swizzle K-major layout: stage1 copies each step's share with the step's weights into
//     a ring per warpgroup, stage2 all of K (6 pairs for DSV4) once per workgroup
//     (stage_warpgroup_activations);
//   each block's result starts from zero and its two scales are applied to it in FP32, as MX
//     requires (the same products as the mma.sync loop).
// The weights stream through the warps' own rings exactly as in gpu/matrix_gemm.hpp, in the
// same upload layout: the instruction's A fragment of lane 4g + t is row g's and row g+8's K
// elements {4t..4t+3} and {16+4t..16+4t+3} of a block, and B's K order in shared memory is
// chosen so that those are the elements 8t..8t+7 the upload gives lane t (even ones first,
// then odd: matrix_layout.hpp's FP8 order, and each FP4 byte's even and odd element).
//
// Accumulation: the tensor cores add a block's 32 FP8 products with fewer than FP32's bits
// (measured on the H200: at most 3.1e-4 of the sum of their magnitudes); each block's result
// is added in FP32, so the error does not grow with K (the family's bar: rtol/atol 0.1).
// NVIDIA sm_90a only.

#include <cstdint>

#include "gpu/matrix_gemm.hpp"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "gpu/matrix_warpgroup_gemm.hpp needs the sm_90a target (CMAKE_CUDA_ARCHITECTURES 90a)"
#endif

namespace fhmoe::kernels::gpu {

// The FP4 weights' e4m3 codes are their values times 2^-6.
inline constexpr float kFp4AsE4m3Factor = 64.0f;

// Bytes of one scale block of one token group in the instruction's B layout: two core
// matrices (K 0-15, K 16-31) of 8 rows x 16 bytes.
inline constexpr unsigned kWarpgroupBlockBytes = 256;

// A packed FP4 word in the upload's bit order (byte k: element 2k's magnitude at bits 1-3 and
// sign at 7, element 2k+1's at 4-6 and 0) -> the e4m3 codes (value x 2^-6: magnitude at bits
// 2-4, sign at 7) of its even elements (byte k = element 2k) and of its odd ones.
__device__ __forceinline__ void fp4x8_to_e4m3x8(std::uint32_t word, std::uint32_t& even,
                                                std::uint32_t& odd) {
    even = ((word << 1) & 0x1C1C1C1Cu) | (word & 0x80808080u);
    odd = ((word >> 2) & 0x1C1C1C1Cu) | ((word << 7) & 0x80808080u);
}

// The shared-memory descriptor of one block of B: no swizzle, core matrices 128 bytes apart
// along K (the leading byte offset) and 256 bytes apart along N (the stride byte offset; one
// token group has one), addresses in 16-byte units. Its low word is the address's units plus
// the leading offset's field, so that blocks at constant offsets from one another differ by
// constants (one addition per block in the loops, where building each from its address took
// four instructions); shared addresses stay below 2^18, within the 14-bit address field.
inline constexpr std::uint32_t kWarpgroupDescriptorLeading = (128 >> 4) << 16;
inline constexpr std::uint64_t kWarpgroupDescriptorStride = static_cast<std::uint64_t>(256 >> 4)
                                                            << 32;
__device__ __forceinline__ std::uint32_t warpgroup_b_descriptor_low(unsigned shared_address) {
    return (shared_address >> 4) + kWarpgroupDescriptorLeading;
}
__device__ __forceinline__ std::uint64_t warpgroup_b_descriptor(std::uint32_t low) {
    return kWarpgroupDescriptorStride | low;
}

// d = A x B for one block: 64 weight rows (this warp's 16: its lanes' a) x 8 token columns.
__device__ __forceinline__ void warpgroup_mma_block(float (&d)[4], const std::uint32_t (&a)[4],
                                                    std::uint64_t b_descriptor) {
    asm volatile(
        "{\n.reg .pred zero_d;\nsetp.ne.b32 zero_d, %9, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, "
        "zero_d, 1, 1;\n}\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_descriptor), "n"(0));
}

__device__ __forceinline__ void warpgroup_fence() {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void warpgroup_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void warpgroup_wait_all() {
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}
// Keeps the compiler from moving a read of an instruction's result above the wait.
__device__ __forceinline__ void warpgroup_result_fence(float& value) {
    asm volatile("" : "+f"(value)::"memory");
}

// One of the 128 four-byte pieces of a pair of B (`index` 0-127) for token group 0 (the
// workgroup's rows 0-7, `rows` in shared memory): where it comes from in the mma-layout
// activations of K columns (pair 0; a pair is 64 bytes further) and where it goes in B's layout
// (2 x 256 bytes per pair). Block b's core matrix 0 holds, per token row, lanes 0-3's first 4
// bytes of the block in the mma layout (elements 8t, 8t+2, 8t+4, 8t+6), core matrix 1 their
// second 4 (the odd elements).
struct WarpgroupActivationPiece {
    std::int64_t source;  // byte offset in the activations, pair 0
    unsigned target;      // byte offset in B's layout, pair 0

    __device__ WarpgroupActivationPiece(int index, const int* rows, std::int64_t k) {
        const int piece = index & 1;        // even or odd elements: core matrix 0 or 1
        const int half = (index >> 1) & 1;  // the pair's first or second block
        const int lane_t = (index >> 2) & 3;
        const int token = (index >> 4) & 7;
        source =
            activation_pair_offset(rows[token], 0, k) + lane_t * kLaneBytes + half * 8 + piece * 4;
        target = half * kWarpgroupBlockBytes + piece * 128 + token * 16 + lane_t * 4;
    }
};
inline constexpr int kWarpgroupPairSourceBytes = 4 * kLaneBytes;
inline constexpr unsigned kWarpgroupPairTargetBytes = 2 * kWarpgroupBlockBytes;

// Copies token group 0's activations for the pairs [first_pair, end_pair) into B's layout at
// `b_shared`. One commit group, issued by every thread of the workgroup before its K loops;
// accumulate_tiles_warpgroup waits for it.
__device__ __forceinline__ void stage_warpgroup_activations(unsigned b_shared,
                                                            const std::uint8_t* activations,
                                                            const int* rows, std::int64_t k,
                                                            std::int64_t first_pair,
                                                            std::int64_t end_pair) {
    const int copies = static_cast<int>(end_pair - first_pair) * 128;
    for (int i = static_cast<int>(threadIdx.x); i < copies; i += static_cast<int>(blockDim.x)) {
        const int pair = i >> 7;
        const WarpgroupActivationPiece piece(i & 127, rows, k);
        copy_async_4_to(
            b_shared + pair * kWarpgroupPairTargetBytes + piece.target,
            activations + piece.source + (first_pair + pair) * kWarpgroupPairSourceBytes);
    }
    commit_copies();
}

// Block `block` (0 or 1) of a pair's weight codes as the instruction's A fragment.
template <bool kFp4>
__device__ __forceinline__ void weight_fragment(const uint4 (&codes)[kFp4 ? 1 : 2], int block,
                                                std::uint32_t (&a)[4]) {
    if constexpr (kFp4) {
        // Words: block 0 row g, block 0 row g+8, block 1 row g, block 1 row g+8.
        const uint4& q = codes[0];
        fp4x8_to_e4m3x8(block == 0 ? q.x : q.z, a[0], a[2]);
        fp4x8_to_e4m3x8(block == 0 ? q.y : q.w, a[1], a[3]);
    } else {
        // Row g's even elements, its odd ones, then row g+8's.
        const uint4& q = codes[block];
        a[0] = q.x;
        a[1] = q.z;
        a[2] = q.y;
        a[3] = q.w;
    }
}

// One block's result `d` times its scales (the weight rows' E8M0 bytes in `scales`, the token
// columns' BF16 factors in `column0` / `column1`, both blocks of the pair in one word) added to
// `acc`; kOneRow: column 0's only.
template <bool kOneRow>
__device__ __forceinline__ void add_scaled_block(float (&acc)[1][4], float (&d)[4],
                                                 std::uint32_t scales, std::uint32_t column0,
                                                 std::uint32_t column1, int block) {
#pragma unroll
    for (int v = 0; v < 4; ++v) warpgroup_result_fence(d[v]);
    const float scale_g = e8m0_float((scales >> (8 * block)) & 0xFF);
    const float scale_g8 = e8m0_float((scales >> (8 * (2 + block))) & 0xFF);
    const float s0 = __uint_as_float(block == 0 ? column0 << 16 : column0 & 0xFFFF0000u);
    acc[0][0] += d[0] * (scale_g * s0);
    acc[0][2] += d[2] * (scale_g8 * s0);
    if constexpr (!kOneRow) {
        const float s1 = __uint_as_float(block == 0 ? column1 << 16 : column1 & 0xFFFF0000u);
        acc[0][1] += d[1] * (scale_g * s1);
        acc[0][3] += d[3] * (scale_g8 * s1);
    }
}

// One step of `count` pairs (kFull: P) from ring slot `slot`, B's blocks from the one whose
// descriptor's low word is `b_low` (warpgroup_b_descriptor_low).
// kOneRow: only token column 0 is a real row (one token of an expert: every routed tile at
// decode sizes); the other columns' sums are padding nobody reads, so the lane leaves them at
// zero and skips their scales and products: 2 of each block's 4 scale products and FMAs, and one
// of the pair's two scale loads. Stage2 takes it (2-5 % faster at 1-64 DSV4 tokens, H200
// 2026-12-04); stage1 only in its warpgroup-only build (1-2 % at 1-4 tokens): beside the
// mma.sync loop its second loop made the kernel spill and run up to 2 % slower from 8 tokens on
// (docs/performance.md).
template <int P, int kStages, bool kFp4, bool kFull, bool kOneRow>
__device__ __forceinline__ void warpgroup_step(float (&acc)[1][4],
                                               LaneCursors<1, P, kStages, kFp4>& c,
                                               const WarpTileOperands& op, int slot, int count,
                                               std::uint32_t b_low) {
    using C = LaneCursors<1, P, kStages, kFp4>;
    uint4 codes[P][C::kChunks];
    std::uint32_t scales[P];
    read_weight_step<P, kStages, kFp4, kFull>(op, slot, count, codes, scales);
    // The lane's two token columns' scales (both blocks of a pair in one word), requested
    // before the matrix instructions so that their latency overlaps them.
    std::uint32_t column0[P];
    [[maybe_unused]] std::uint32_t column1[P];
#pragma unroll
    for (int i = 0; i < P; ++i) {
        if (!kFull && i >= count) break;
        column0[i] = __ldg(
            reinterpret_cast<const unsigned int*>(op.activation_scales + c.scale0_at[0] + 2 * i));
        if constexpr (!kOneRow) {
            column1[i] = __ldg(reinterpret_cast<const unsigned int*>(op.activation_scales +
                                                                     c.scale1_at[0] + 2 * i));
        }
    }
    if constexpr (kFull && kOneRow && P <= 2) {
        // A whole step's instructions in one group, one wait: the tensor cores' latency once
        // per step, not once per pair (steps of up to two pairs: 8 more registers a thread; 1-3 %
        // faster at 1-4 DSV4 tokens on the H200, docs/performance.md 2026-12-04).
        std::uint32_t a[P][2][4];
#pragma unroll
        for (int i = 0; i < P; ++i) {
#pragma unroll
            for (int block = 0; block < 2; ++block)
                weight_fragment<kFp4>(codes[i], block, a[i][block]);
        }
        float d[P][2][4];
        warpgroup_fence();
#pragma unroll
        for (int i = 0; i < P; ++i) {
#pragma unroll
            for (int block = 0; block < 2; ++block) {
                warpgroup_mma_block(
                    d[i][block], a[i][block],
                    warpgroup_b_descriptor(b_low + (2 * i + block) * (kWarpgroupBlockBytes >> 4)));
            }
        }
        warpgroup_commit();
        warpgroup_wait_all();
#pragma unroll
        for (int i = 0; i < P; ++i) {
#pragma unroll
            for (int block = 0; block < 2; ++block) {
                add_scaled_block<true>(acc, d[i][block], scales[i], column0[i], 0u, block);
            }
        }
    } else {
        // One pair at a time: its two blocks' instructions, then their results (whole general
        // steps at once kept every pair's fragments and results live: up to 250 registers a
        // thread in the builds beside the mma.sync loop).
#pragma unroll
        for (int i = 0; i < P; ++i) {
            if (!kFull && i >= count) break;
            std::uint32_t a[2][4];
#pragma unroll
            for (int block = 0; block < 2; ++block)
                weight_fragment<kFp4>(codes[i], block, a[block]);
            float d[2][4];
            warpgroup_fence();
#pragma unroll
            for (int block = 0; block < 2; ++block) {
                warpgroup_mma_block(
                    d[block], a[block],
                    warpgroup_b_descriptor(b_low + (2 * i + block) * (kWarpgroupBlockBytes >> 4)));
            }
            warpgroup_commit();
            warpgroup_wait_all();
#pragma unroll
            for (int block = 0; block < 2; ++block) {
                if constexpr (kOneRow) {
                    add_scaled_block<true>(acc, d[block], scales[i], column0[i], 0u, block);
                } else {
                    add_scaled_block<false>(acc, d[block], scales[i], column0[i], column1[i],
                                            block);
                }
            }
        }
    }
    c.scale0_at[0] += 2 * P;
    c.scale1_at[0] += 2 * P;
}

// accumulate_pairs (gpu/matrix_gemm.hpp) for one token group on the warpgroup instruction:
// pairs [first, end) of this warp's weight tile, the token group's activations through the
// warpgroup's ring at `b_ring` (matrix_stage1_warpgroup_ring_bytes: kStages slots of P pairs
// of B, each step's pieces copied with the step's weights, so that the workgroup's shared
// memory does not grow with its share of K), named barrier `barrier` for the warpgroup's 128
// threads. Every warp of the warpgroup calls it with the same range (the barriers count on it).
// `acc` is zero on entry; op.weight_factor is the weights' code factor (kFp4AsE4m3Factor for FP4, 1
// for FP8). kOneRow: warpgroup_step's (the token group holds one real row).
template <int P, int kStages, bool kFp4, bool kOneRow = false>
__device__ __forceinline__ void accumulate_pairs_warpgroup(float (&acc)[1][4],
                                                           const WarpTileOperands& op,
                                                           std::int64_t first, std::int64_t end,
                                                           unsigned b_ring, int barrier) {
    constexpr unsigned kSlotBytes = P * kWarpgroupPairTargetBytes;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int pairs = static_cast<int>(end - first);
    const int full_steps = pairs / P;
    const int rest = pairs - full_steps * P;
    LaneCursors<1, P, kStages, kFp4> c(op, first, lane);
    // This thread's piece of every pair (one per thread of the warpgroup): its source and
    // target move by constant strides from pair to pair.
    const WarpgroupActivationPiece piece(static_cast<int>(threadIdx.x) & 127, op.rows, op.k);
    const std::uint8_t* piece_source =
        op.activations + piece.source + first * kWarpgroupPairSourceBytes;
    const unsigned piece_target = b_ring + piece.target;
    // Every warp of the warpgroup has left its previous K loop (the instructions that read the
    // ring are complete) before the ring is refilled.
    group_barrier(barrier, 128);
    int copy_slot = 0;
    // Step s's copies: its weights and its activation pieces (count pairs), one commit group
    // (empty past the end, so that the group count stays in step with the waits below).
    // One real row: only token column 0's pieces are copied (the warpgroup's first 16
    // threads); the other columns of B keep whatever the ring held, and their sums are never
    // read (kOneRow). 1-2 % faster at 1-4 DSV4 tokens (H200, 2026-12-04).
    const bool copies_piece = !kOneRow || (static_cast<int>(threadIdx.x) & 127) < 16;
    auto copy_pieces = [&](int count) {
#pragma unroll
        for (int i = 0; i < P; ++i) {
            if (i >= count || !copies_piece) break;
            copy_async_4_to(piece_target + copy_slot * kSlotBytes + i * kWarpgroupPairTargetBytes,
                            piece_source + i * kWarpgroupPairSourceBytes);
        }
        piece_source += P * kWarpgroupPairSourceBytes;
    };
    auto next_copy_slot = [&] {
        commit_copies();
        copy_slot = copy_slot + 1 == kStages ? 0 : copy_slot + 1;
    };
    auto issue_full = [&] {
        copy_step<1, P, kStages, kFp4, true>(c, copy_slot, P);
        copy_pieces(P);
        next_copy_slot();
    };
    auto issue = [&](int s) {
        if (s < full_steps) {
            issue_full();
            return;
        }
        if (s == full_steps && rest > 0) {
            copy_step<1, P, kStages, kFp4, false>(c, copy_slot, rest);
            copy_pieces(rest);
        }
        next_copy_slot();
    };
    // A step's pieces, copied by the warpgroup's threads (the generic proxy), are read by the
    // matrix instruction (the async proxy): each thread's copies complete, the proxy fence,
    // then the barrier, before any warp's instructions. The barrier also tells the warps that
    // the slot the next copies overwrite (the previous step's) is read.
    auto step_ready = [&] {
        wait_copies<kStages - 2>();
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        group_barrier(barrier, 128);
    };
    const std::uint32_t b_low = warpgroup_b_descriptor_low(b_ring);
    constexpr std::uint32_t kSlotUnits = kSlotBytes >> 4;
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) issue(s);
    int slot = 0;
    int step = 0;
    // Steady state: the step kStages - 1 ahead is a full one (no count to decide per step: the
    // general issue's branches were ~30 of the loop's ~260 instructions per step in the SASS).
    for (; step + kStages - 1 < full_steps; ++step) {
        step_ready();
        issue_full();
        warpgroup_step<P, kStages, kFp4, true, kOneRow>(acc, c, op, slot, P,
                                                        b_low + slot * kSlotUnits);
        slot = slot + 1 == kStages ? 0 : slot + 1;
    }
    for (; step < full_steps; ++step) {
        step_ready();
        issue(step + kStages - 1);
        warpgroup_step<P, kStages, kFp4, true, kOneRow>(acc, c, op, slot, P,
                                                        b_low + slot * kSlotUnits);
        slot = slot + 1 == kStages ? 0 : slot + 1;
    }
    if (rest > 0) {
        step_ready();
        warpgroup_step<P, kStages, kFp4, false, kOneRow>(acc, c, op, slot, rest,
                                                         b_low + slot * kSlotUnits);
    }
    wait_copies<0>();  // no copy may still be landing when the rings are reused
    apply_weight_factor<1>(acc, op.weight_factor);
}

// accumulate_tiles (gpu/matrix_gemm.hpp) for one token group on the warpgroup instruction:
// `tiles` consecutive weight tiles, each over all `pairs_per_tile` pairs of K, as one weight
// stream; `store(acc, tile)` after each tile's last step. The activations (all of K, one token
// group: stage2's h) are copied into `b_shared` after the first weight copies are in flight and,
// with op.wait_before_reads, after the kernel that writes them; every thread of the workgroup
// calls this (a workgroup barrier). P must divide pairs_per_tile. kOneRow: as warpgroup_step's.
template <int P, int kStages, bool kFp4, bool kOneRow, typename Store>
__device__ __forceinline__ void accumulate_tiles_warpgroup(const WarpTileOperands& op,
                                                           int pairs_per_tile, int tiles,
                                                           Store&& store, unsigned b_shared) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int steps_per_tile = pairs_per_tile / P;
    const int steps = steps_per_tile * tiles;
    LaneCursors<1, P, kStages, kFp4> c(op, 0, lane);
    int copy_slot = 0;
    auto issue = [&](int s) {
        if (s < steps) copy_step<1, P, kStages, kFp4, true>(c, copy_slot, P);
        commit_copies();
        copy_slot = copy_slot + 1 == kStages ? 0 : copy_slot + 1;
    };
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) issue(s);
    if (op.wait_before_reads) wait_for_previous_kernel();
    stage_warpgroup_activations(b_shared, op.activations, op.rows, op.k, 0, pairs_per_tile);
    wait_copies<0>();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float acc[1][4] = {{0.0f, 0.0f, 0.0f, 0.0f}};
    const std::uint32_t b_low = warpgroup_b_descriptor_low(b_shared);
    int slot = 0;
    int tile = 0;
    int step_in_tile = 0;
    for (int step = 0; step < steps; ++step) {
        wait_copies<kStages - 2>();
        issue(step + kStages - 1);
        warpgroup_step<P, kStages, kFp4, true, kOneRow>(
            acc, c, op, slot, P,
            b_low +
                static_cast<std::uint32_t>(step_in_tile * P) * (kWarpgroupPairTargetBytes >> 4));
        slot = slot + 1 == kStages ? 0 : slot + 1;
        if (++step_in_tile == steps_per_tile) {
            apply_weight_factor<1>(acc, op.weight_factor);
            store(acc, tile);
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[0][v] = 0.0f;
            c.scale0_at[0] -= 2 * pairs_per_tile;
            c.scale1_at[0] -= 2 * pairs_per_tile;
            step_in_tile = 0;
            ++tile;
        }
    }
    wait_copies<0>();  // no copy may still be landing when the ring is reused
}

}  // namespace fhmoe::kernels::gpu
