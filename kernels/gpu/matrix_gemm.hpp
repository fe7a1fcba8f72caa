#pragma once

// One warp's share of a matrix-path GEMM: a 16-row weight tile (FP4 or FP8, E8M0 scales)
// against TG groups of 8 activation rows (MXFP8), over a range of K pairs, into FP32
// accumulators. Per 32-wide scale block the two matrix instructions start from zero and the
// block's weight and activation scales are applied to their sum, as MX requires.
// Layouts: gpu/matrix_layout.hpp; conversions: gpu/mma_fragments.hpp. NVIDIA only.

#include <cstdint>

#include "gpu/dependent_launch.hpp"
#include "gpu/matrix_args.hpp"
#include "gpu/matrix_layout.hpp"
#include "gpu/mma_fragments.hpp"

namespace fhmoe::kernels::gpu {

struct WarpTileOperands {
    const std::uint8_t* weights = nullptr;        // the tile's first pair (FP4) or block (FP8)
    const std::uint8_t* weight_scales = nullptr;  // the tile's first pair of scales
    float weight_factor = 1.0f;  // 2^14 for FP4 (their FP16 codes are scaled down): on the sums
    const std::uint8_t* activations = nullptr;         // mma layout, K columns
    const std::uint16_t* activation_scales = nullptr;  // [row][K/32] BF16 factors (matrix_layout)
    std::int64_t k = 0;
    const int* rows = nullptr;      // shared memory: the activation row of each token column
    int groups = 0;                 // token groups holding a real row (the rest are padding)
    unsigned char* ring = nullptr;  // this warp's ring (matrix_ring_bytes_per_warp)
    // The activations are the previous kernel's output (stage2's h under a programmatic
    // dependent launch, gpu/dependent_launch.hpp): the K loop waits for that kernel after its
    // first weight copies are in flight and before its first activation read.
    bool wait_before_reads = false;
    // Activations staged for a group of warps (gpu/matrix_staged_activations.hpp): the group's
    // ring, its warps (each copies a share), this warp's index among them, its named barrier.
    unsigned char* activation_ring = nullptr;
    int sharing_warps = 1;
    int share = 0;
    int barrier = 1;
};

__device__ __forceinline__ uint4 load_lane16(const std::uint8_t* p) {
    return __ldg(reinterpret_cast<const uint4*>(p));
}

// One block's four pairs of rows g and g+8 (fp4x8_to_f16x8's order: (e0,e2) (e4,e6) (e1,e3)
// (e5,e7)) as the A registers of the block's two instructions.
__device__ __forceinline__ void place_block_fragments(const std::uint32_t (&row_g)[4],
                                                      const std::uint32_t (&row_g8)[4],
                                                      std::uint32_t (&a)[2][4]) {
    a[0][0] = row_g[0];
    a[0][1] = row_g8[0];
    a[0][2] = row_g[1];
    a[0][3] = row_g8[1];
    a[1][0] = row_g[2];
    a[1][1] = row_g8[2];
    a[1][2] = row_g[3];
    a[1][3] = row_g8[3];
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
        place_block_fragments(row_g, row_g8, a[block]);
    }
}

// The weight stream goes through a per-warp ring of shared memory filled by asynchronous
// copies (cp.async), kStages steps deep: the bytes in flight per warp no longer cost
// registers, so a multiprocessor keeps enough of them in flight to reach memory bandwidth.
// Each lane copies and later reads only its own 16-byte chunks, so completing its own copy
// groups is all the ordering a lane needs. Sized for FP8 (two chunks per pair); FP4 uses one.

// The destination as a shared-memory address (what the instruction takes), or as a pointer.
__device__ __forceinline__ void copy_async_16_to(unsigned shared, const void* global) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(global));
}

__device__ __forceinline__ void copy_async_4_to(unsigned shared, const void* global) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(shared), "l"(global));
}

__device__ __forceinline__ void copy_async_16(void* shared, const void* global) {
    copy_async_16_to(static_cast<unsigned>(__cvta_generic_to_shared(shared)), global);
}

__device__ __forceinline__ void copy_async_4(void* shared, const void* global) {
    copy_async_4_to(static_cast<unsigned>(__cvta_generic_to_shared(shared)), global);
}

__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }

template <int kPending>
__device__ __forceinline__ void wait_copies() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

// A named barrier (bar.sync `id`) of `threads` threads: a group of warps (id 0 is the
// workgroup's __syncthreads).
__device__ __forceinline__ void group_barrier(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
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

// One token group's activation fragment and the scales of the two token columns a lane
// accumulates, for one pair.
struct ActivationPair {
    uint4 codes;
    std::uint32_t scale0;  // the pair's two blocks' BF16 factors, the first in the low half
    std::uint32_t scale1;
};

// Where a lane's activation fragment and its two token columns' scales start, for one token
// group (LaneCursors below keeps them as offsets for a whole K loop).
struct ActivationRow {
    const std::uint8_t* codes;
    const std::uint16_t* scale0;
    const std::uint16_t* scale1;
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
        const float s0 = __uint_as_float(block == 0 ? b.scale0 << 16 : b.scale0 & 0xFFFF0000u);
        const float s1 = __uint_as_float(block == 0 ? b.scale1 << 16 : b.scale1 & 0xFFFF0000u);
        acc[tg][0] += sum[0] * (scale_g[block] * s0);
        acc[tg][1] += sum[1] * (scale_g[block] * s1);
        acc[tg][2] += sum[2] * (scale_g8[block] * s0);
        acc[tg][3] += sum[3] * (scale_g8[block] * s1);
    }
}

// A lane's cursors over one K loop: the global sources it copies from and the activation rows
// it reads advance by constant strides, the ring slots by whole slots, so the loop body adds
// offsets instead of recomputing 64-bit index products per copy and per load (the profile
// of the previous loop at 4 DSV4 tokens: ~90 of its ~175 instructions per pair were that).
template <int TG, int P, int kStages, bool kFp4>
struct LaneCursors {
    static constexpr int kChunks = kFp4 ? 1 : 2;                 // 16-byte chunks per lane per pair
    static constexpr int kPairBytes = kChunks * kWarpTileBytes;  // a warp's weight bytes per pair
    static constexpr unsigned kSlotCodeBytes = P * 2 * kWarpTileBytes;  // ring slot, codes
    static constexpr unsigned kSlotScaleBytes = P * 32 * 4;             // ring slot, scales

    const std::uint8_t* weights;  // the next pair to copy, this lane's chunk
    const std::uint8_t* scales;   // the next pair's scale word of this lane's rows
    unsigned ring_codes;          // shared address of this lane's chunk in slot 0, pair 0
    unsigned ring_scales;
    // This lane's activation fragment and its token columns' scales at the next pair to read,
    // as 32-bit offsets from op.activations / op.activation_scales (fewer live registers).
    unsigned codes_at[TG];
    unsigned scale0_at[TG];
    unsigned scale1_at[TG];

    __device__ LaneCursors(const WarpTileOperands& op, std::int64_t first, int lane) {
        const int g = lane >> 2;
        weights = op.weights + first * kPairBytes + lane * kLaneBytes;
        scales = op.weight_scales + (first * 8 + g) * 4;
        ring_codes = static_cast<unsigned>(__cvta_generic_to_shared(op.ring)) + lane * kLaneBytes;
        ring_scales = ring_codes - lane * kLaneBytes + kStages * kSlotCodeBytes + lane * 4;
#pragma unroll
        for (int tg = 0; tg < TG; ++tg) {
            if (tg < op.groups) {
                const ActivationRow row = activation_row(op, tg, lane);
                codes_at[tg] =
                    static_cast<unsigned>(row.codes - op.activations + first * (4 * kLaneBytes));
                scale0_at[tg] =
                    static_cast<unsigned>(row.scale0 - op.activation_scales + 2 * first);
                scale1_at[tg] =
                    static_cast<unsigned>(row.scale1 - op.activation_scales + 2 * first);
            }
        }
    }

    // Group tg's fragment and scales at the current step, as pointers: a step's loads of the
    // group then differ by constants the load instructions carry, where adding each load's
    // offset to the 64-bit bases cost three instructions per load (the profile at 64 DSV4
    // tokens: ~6 % of the loop).
    __device__ __forceinline__ ActivationRow step_row(const WarpTileOperands& op, int tg) const {
        return {op.activations + codes_at[tg], op.activation_scales + scale0_at[tg],
                op.activation_scales + scale1_at[tg]};
    }

    // Pair i of the step from the group's step_row.
    __device__ __forceinline__ static ActivationPair load(const ActivationRow& row, int i) {
        ActivationPair a;
        a.codes = load_lane16(row.codes + i * (4 * kLaneBytes));
        a.scale0 = __ldg(reinterpret_cast<const unsigned int*>(row.scale0 + 2 * i));
        a.scale1 = __ldg(reinterpret_cast<const unsigned int*>(row.scale1 + 2 * i));
        return a;
    }
};

// Copies `count` pairs (kFull: P) from the cursor into ring slot `slot` and moves the cursor on.
template <int TG, int P, int kStages, bool kFp4, bool kFull>
__device__ __forceinline__ void copy_step(LaneCursors<TG, P, kStages, kFp4>& c, int slot,
                                          int count) {
    using C = LaneCursors<TG, P, kStages, kFp4>;
    const unsigned codes = c.ring_codes + slot * C::kSlotCodeBytes;
    const unsigned scales = c.ring_scales + slot * C::kSlotScaleBytes;
#pragma unroll
    for (int i = 0; i < P; ++i) {
        if (!kFull && i >= count) break;
        copy_async_16_to(codes + i * 2 * kWarpTileBytes, c.weights + i * C::kPairBytes);
        if constexpr (!kFp4) {
            copy_async_16_to(codes + (i * 2 + 1) * kWarpTileBytes,
                             c.weights + i * C::kPairBytes + kWarpTileBytes);
        }
        copy_async_4_to(scales + i * 32 * 4, c.scales + i * 32);
    }
    c.weights += P * C::kPairBytes;
    c.scales += P * 32;
}

// A step's weight codes and scale words from ring slot `slot`: `count` pairs (kFull: P).
template <int P, int kStages, bool kFp4, bool kFull>
__device__ __forceinline__ void read_weight_step(const WarpTileOperands& op, int slot, int count,
                                                 uint4 (&codes)[P][kFp4 ? 1 : 2],
                                                 std::uint32_t (&scales)[P]) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const WeightRing<P, kStages> ring(op.ring);
#pragma unroll
    for (int i = 0; i < P; ++i) {
        if (!kFull && i >= count) break;
        codes[i][0] = ring.codes[((slot * P + i) * 2) * 32 + lane];
        if constexpr (!kFp4) codes[i][1] = ring.codes[((slot * P + i) * 2 + 1) * 32 + lane];
        scales[i] = ring.scales[(slot * P + i) * 32 + lane];
    }
}

// One pair's weight fragments (FP16) and its rows' block scales (g and g + 8, per block).
template <bool kFp4>
__device__ __forceinline__ void pair_weights(const uint4* codes, std::uint32_t scales,
                                             std::uint32_t (&a)[2][2][4], float (&scale_g)[2],
                                             float (&scale_g8)[2]) {
    weight_fragments<kFp4>(codes, a);
#pragma unroll
    for (int block = 0; block < 2; ++block) {
        scale_g[block] = e8m0_float((scales >> (8 * block)) & 0xFF);
        scale_g8[block] = e8m0_float((scales >> (8 * (2 + block))) & 0xFF);
    }
}

// One step's work on ring slot `slot`: `count` pairs (kFull: P).
template <int TG, int P, int kStages, bool kFp4, bool kFull>
__device__ __forceinline__ void multiply_step(float (&acc)[TG][4],
                                              LaneCursors<TG, P, kStages, kFp4>& c,
                                              const WarpTileOperands& op, int slot, int count) {
    using C = LaneCursors<TG, P, kStages, kFp4>;
    uint4 codes[P][C::kChunks];
    std::uint32_t scales[P];
    read_weight_step<P, kStages, kFp4, kFull>(op, slot, count, codes, scales);
    // This step's activation fragments (shared by every weight tile, mostly cache hits), all
    // requested before the first instruction uses one when they fit in registers; the largest
    // steps one pair at a time.
    constexpr bool kWholeStep = TG * P <= 8;
    ActivationPair staged[kWholeStep ? P : 1][TG];
    if constexpr (kWholeStep) {
#pragma unroll
        for (int tg = 0; tg < TG; ++tg) {
            if (tg >= op.groups) break;
            const ActivationRow row = c.step_row(op, tg);
#pragma unroll
            for (int i = 0; i < P; ++i) {
                if (!kFull && i >= count) break;
                staged[i][tg] = C::load(row, i);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < P; ++i) {
        if (!kFull && i >= count) break;
        std::uint32_t a[2][2][4];
        float scale_g[2];
        float scale_g8[2];
        pair_weights<kFp4>(codes[i], scales[i], a, scale_g, scale_g8);
        if constexpr (!kWholeStep) {
#pragma unroll
            for (int tg = 0; tg < TG; ++tg) {
                if (tg >= op.groups) break;
                staged[0][tg] = C::load(c.step_row(op, tg), i);
            }
        }
#pragma unroll
        for (int tg = 0; tg < TG; ++tg) {
            if (tg >= op.groups) break;
            multiply_pair<TG>(acc, tg, a, scale_g, scale_g8, staged[kWholeStep ? i : 0][tg]);
        }
    }
#pragma unroll
    for (int tg = 0; tg < TG; ++tg) {
        if (tg >= op.groups) break;
        c.codes_at[tg] += P * (4 * kLaneBytes);
        c.scale0_at[tg] += 2 * P;
        c.scale1_at[tg] += 2 * P;
    }
}

// The sums times the weights' format factor (2^14 for FP4, whose FP16 codes are the values
// times 2^-14), once per tile after its K loop rather than in every block's scale product (four
// multiplications per pair). Exact: a power of two, far from the float range's ends.
template <int TG>
__device__ __forceinline__ void apply_weight_factor(float (&acc)[TG][4], float factor) {
#pragma unroll
    for (int tg = 0; tg < TG; ++tg) {
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[tg][v] *= factor;
    }
}

// Pairs [first, end) in steps of P pairs. Weights arrive through the warp's ring (above),
// kStages - 1 steps ahead; the steps are whole but for the last, which alone checks its pair
// count. Token groups at or past op.groups are padding only and are skipped. `acc` is zero
// on entry (the weight factor is applied to it at the end).
template <int TG, int P, int kStages, bool kFp4>
__device__ __forceinline__ void accumulate_pairs(float (&acc)[TG][4], const WarpTileOperands& op,
                                                 std::int64_t first, std::int64_t end) {
    if (first >= end) return;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int pairs = static_cast<int>(end - first);
    const int full_steps = pairs / P;
    const int rest = pairs - full_steps * P;
    LaneCursors<TG, P, kStages, kFp4> c(op, first, lane);
    // The copies of step s (one commit group per step, empty past the end, so that the group
    // count stays in step with the wait below).
    int copy_slot = 0;
    auto issue = [&](int s) {
        if (s < full_steps) {
            copy_step<TG, P, kStages, kFp4, true>(c, copy_slot, P);
        } else if (s == full_steps && rest > 0) {
            copy_step<TG, P, kStages, kFp4, false>(c, copy_slot, rest);
        }
        commit_copies();
        copy_slot = copy_slot + 1 == kStages ? 0 : copy_slot + 1;
    };
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) issue(s);
    if (op.wait_before_reads) wait_for_previous_kernel();
    int slot = 0;
    for (int step = 0; step < full_steps; ++step) {
        wait_copies<kStages - 2>();
        issue(step + kStages - 1);
        multiply_step<TG, P, kStages, kFp4, true>(acc, c, op, slot, P);
        slot = slot + 1 == kStages ? 0 : slot + 1;
    }
    if (rest > 0) {
        wait_copies<kStages - 2>();
        multiply_step<TG, P, kStages, kFp4, false>(acc, c, op, slot, rest);
    }
    wait_copies<0>();  // no copy may still be landing when the ring is reused
    apply_weight_factor<TG>(acc, op.weight_factor);
}

// `tiles` consecutive weight tiles of one matrix, each over all `pairs_per_tile` pairs of K,
// as one stream: the tiles lie one after another in memory (gpu/matrix_layout.hpp), so the
// ring keeps copying across a tile boundary while the warp finishes the tile before it, and
// the pipeline fills once per warp, not once per tile (at decode a tile is only a few pairs:
// 6 for stage2 of DSV4, where the fill and the drain were most of a warp's time). After the
// last step of each tile, `store(acc, tile)` takes its sums and the accumulators start again
// from zero; the activation cursors go back to K's first pair. P must divide pairs_per_tile.
template <int TG, int P, int kStages, bool kFp4, typename Store>
__device__ __forceinline__ void accumulate_tiles(const WarpTileOperands& op, int pairs_per_tile,
                                                 int tiles, Store&& store) {
    if constexpr (TG > 1) {
        // One token group holds every real row (1-8 tokens of an expert: every tile at decode,
        // most up to a few hundred DSV4 tokens): the one-group loop, without the other groups'
        // predicated loads and checks in every step. Stage2 4 % faster at 64 and 256 DSV4
        // tokens, the whole op 1-3 % at 1-256; the same in stage1's accumulate_pairs was 1-2 %
        // faster at 1-256 tokens but 3 % slower at 1024 (the two loops cost its two-group path
        // a few spilled registers).
        if (op.groups == 1) {
            accumulate_tiles<1, P, kStages, kFp4>(op, pairs_per_tile, tiles,
                                                  [&](const float(&one)[1][4], int tile) {
                                                      float sums[TG][4] = {};
#pragma unroll
                                                      for (int v = 0; v < 4; ++v)
                                                          sums[0][v] = one[0][v];
                                                      store(sums, tile);
                                                  });
            return;
        }
    }
    float acc[TG][4];
#pragma unroll
    for (int tg = 0; tg < TG; ++tg) acc[tg][0] = acc[tg][1] = acc[tg][2] = acc[tg][3] = 0.0f;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int steps_per_tile = pairs_per_tile / P;
    const int steps = steps_per_tile * tiles;
    LaneCursors<TG, P, kStages, kFp4> c(op, 0, lane);
    int copy_slot = 0;
    auto issue = [&](int s) {
        if (s < steps) copy_step<TG, P, kStages, kFp4, true>(c, copy_slot, P);
        commit_copies();
        copy_slot = copy_slot + 1 == kStages ? 0 : copy_slot + 1;
    };
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) issue(s);
    if (op.wait_before_reads) wait_for_previous_kernel();
    int slot = 0;
    int tile = 0;
    int step_in_tile = 0;
    for (int step = 0; step < steps; ++step) {
        wait_copies<kStages - 2>();
        issue(step + kStages - 1);
        multiply_step<TG, P, kStages, kFp4, true>(acc, c, op, slot, P);
        slot = slot + 1 == kStages ? 0 : slot + 1;
        if (++step_in_tile == steps_per_tile) {
            apply_weight_factor<TG>(acc, op.weight_factor);
            store(acc, tile);
#pragma unroll
            for (int tg = 0; tg < TG; ++tg) {
                acc[tg][0] = acc[tg][1] = acc[tg][2] = acc[tg][3] = 0.0f;
                if (tg < op.groups) {
                    c.codes_at[tg] -= pairs_per_tile * (4 * kLaneBytes);
                    c.scale0_at[tg] -= 2 * pairs_per_tile;
                    c.scale1_at[tg] -= 2 * pairs_per_tile;
                }
            }
            step_in_tile = 0;
            ++tile;
        }
    }
    wait_copies<0>();  // no copy may still be landing when the ring is reused
}

// The whole range [first, end); `acc` is zero on entry.
template <int TG, int P, int kStages, bool kFp4>
__device__ __forceinline__ void accumulate_range(float (&acc)[TG][4], const WarpTileOperands& op,
                                                 std::int64_t first, std::int64_t end) {
    accumulate_pairs<TG, P, kStages, kFp4>(acc, op, first, end);
}

}  // namespace fhmoe::kernels::gpu
