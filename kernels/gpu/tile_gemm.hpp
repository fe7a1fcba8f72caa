#pragma once

// The device side of a stage's tile GEMM (the layout is tile_geometry.hpp's): staging one K
// step of MXFP8 activations in shared memory, dequantizing 1x32 weight blocks (MXFP4 routed
// or FP8 shared expert) in registers, fp32 accumulation, and the K groups' reduction. Stage1
// and stage2 differ only in their rows' sources and their epilogues.

#include <cstdint>

#include "common/e8m0.hpp"
#include "common/fp4_e2m1.hpp"
#include "common/fp8_e4m3.hpp"
#include "common/mx_block.hpp"
#include "gpu/portability.hpp"
#include "gpu/tile_geometry.hpp"

namespace fhmoe::kernels::gpu {

// The sorted-entry packing of moe_sorting (spec 6.3 step 2): token in the low 24 bits, slot
// above.
__device__ inline std::int64_t entry_token(std::int32_t entry) {
    return static_cast<std::int64_t>(static_cast<std::uint32_t>(entry) & 0x00FFFFFFu);
}
__device__ inline std::int64_t entry_slot(std::int32_t entry) {
    return static_cast<std::int64_t>(static_cast<std::uint32_t>(entry) >> 24);
}
// The (token, slot) row of a sorted entry in the per-slot tensors ([M*topk, ...]: stage1's
// output, stage2's input and reduce-mode output).
__device__ inline std::int64_t entry_slot_row(std::int32_t entry, std::int64_t topk) {
    return entry_token(entry) * topk + entry_slot(entry);
}

// One expert's weight matrix [rows, k]: MXFP4 (fp4x2 codes) or FP8, with one E8M0 scale per
// 1x32 block along k.
struct WeightView {
    const std::uint8_t* codes = nullptr;
    const std::uint8_t* scales = nullptr;
    std::int64_t k = 0;
    bool fp4 = true;
};

// MXFP8 rows [rows, k] (activations).
struct ActivationView {
    const std::uint8_t* codes = nullptr;
    const std::uint8_t* scales = nullptr;
    std::int64_t k = 0;
};

__device__ inline void decode_fp4_word(std::uint32_t word, float scale, float* out) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        out[i] = decode_fp4_e2m1(static_cast<std::uint8_t>((word >> (4 * i)) & 0x0Fu)) * scale;
    }
}

__device__ inline void decode_fp8_word(std::uint32_t word, float scale, float* out) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        out[i] = decode_fp8_e4m3(static_cast<std::uint8_t>((word >> (8 * i)) & 0xFFu)) * scale;
    }
}

// The 32 dequantized values of block `block` of weight row `row`, read with 16-byte loads
// (a row's blocks are 16-byte aligned: k is a multiple of 32 and buffers 256-byte aligned).
__device__ inline void load_weight_block(const WeightView& w, std::int64_t row, std::int64_t block,
                                         float* out) {
    const float scale = decode_e8m0(w.scales[row * (w.k / kMxBlockSize) + block]);
    if (w.fp4) {
        const uint4 packed =
            *reinterpret_cast<const uint4*>(w.codes + (row * w.k + block * kMxBlockSize) / 2);
        decode_fp4_word(packed.x, scale, out);
        decode_fp4_word(packed.y, scale, out + 8);
        decode_fp4_word(packed.z, scale, out + 16);
        decode_fp4_word(packed.w, scale, out + 24);
    } else {
        const uint4* source =
            reinterpret_cast<const uint4*>(w.codes + row * w.k + block * kMxBlockSize);
        const uint4 low = source[0];
        const uint4 high = source[1];
        decode_fp8_word(low.x, scale, out);
        decode_fp8_word(low.y, scale, out + 4);
        decode_fp8_word(low.z, scale, out + 8);
        decode_fp8_word(low.w, scale, out + 12);
        decode_fp8_word(high.x, scale, out + 16);
        decode_fp8_word(high.y, scale, out + 20);
        decode_fp8_word(high.z, scale, out + 24);
        decode_fp8_word(high.w, scale, out + 28);
    }
}

// Where a thread sits in the tile (tile_geometry.hpp).
struct ThreadPlace {
    int k_group;
    int lane;       // within the K group, [0, threads_n)
    int column;     // within a pass, [0, columns_per_pass)
    int row_split;  // [0, row_splits)

    __device__ explicit ThreadPlace(const TileGeometry& g)
        : k_group(static_cast<int>(threadIdx.x) / g.threads_n),
          lane(static_cast<int>(threadIdx.x) % g.threads_n),
          column(lane % g.columns_per_pass),
          row_split(lane / g.columns_per_pass) {}

    // The pass row of this thread's j-th accumulator row.
    __device__ int pass_row(const TileGeometry& g, int j) const {
        return j * g.row_splits + row_split;
    }
};

// Row `r` of a pass reads activation row activation_row(entries[r]); -1 is a padding row.
struct RowSource {
    const std::int32_t* entries;  // sorted_ids at the pass's first row
    std::int64_t tokens;
    std::int64_t topk;
    bool per_slot;  // stage2: rows of h are (token, slot); stage1: rows of x are tokens

    __device__ std::int64_t activation_row(int r) const {
        const std::int32_t entry = entries[r];
        const std::int64_t token = entry_token(entry);
        if (token >= tokens) return -1;
        return per_slot ? entry_slot_row(entry, topk) : token;
    }
};

// True when some row of the pass is a real (token, slot), the same answer in every thread:
// a pass of padding rows only is skipped whole.
__device__ inline bool pass_has_rows(const TileGeometry& g, const RowSource& rows) {
    for (int r = 0; r < g.rows_per_pass; ++r) {
        if (entry_token(rows.entries[r]) < rows.tokens) return true;
    }
    return false;
}

// Stages K step [k0, k0 + tile_k) of the pass's activation rows, dequantized, in `staged`
// [rows_per_pass][tile_k]; padding rows are zeros.
__device__ inline void stage_activations(float* staged, const TileGeometry& g,
                                         const ActivationView& a, const RowSource& rows,
                                         std::int64_t k0) {
    const int count = g.rows_per_pass * g.tile_k;
    const std::int64_t scale_blocks = a.k / kMxBlockSize;
    for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x)) {
        const int r = i / g.tile_k;
        const std::int64_t k = k0 + i % g.tile_k;
        const std::int64_t row = rows.activation_row(r);
        float value = 0.0f;
        if (row >= 0) {
            value = decode_fp8_e4m3(a.codes[row * a.k + k]) *
                    decode_e8m0(a.scales[row * scale_blocks + k / kMxBlockSize]);
        }
        staged[i] = value;
    }
}

template <int kWeightRows>
struct Accumulators {
    float value[kWeightRows][kMaxRowsPerThread];

    __device__ void clear() {
#pragma unroll
        for (int q = 0; q < kWeightRows; ++q) {
#pragma unroll
            for (int j = 0; j < kMaxRowsPerThread; ++j) value[q][j] = 0.0f;
        }
    }
};

// Bit j set when this thread's j-th row of the pass is a real (token, slot), not block_m
// padding. At decode sizes most rows of an expert's block are padding (one token among
// block_m rows): their sums are zero whatever is computed, so the K loop skips them. All
// lanes of a warp share their rows when a pass covers the tile's columns (row_splits 1), so
// skipping does not diverge there.
__device__ inline unsigned live_rows(const TileGeometry& g, const ThreadPlace& place,
                                     const RowSource& rows) {
    unsigned live = 0;
#pragma unroll
    for (int j = 0; j < kMaxRowsPerThread; ++j) {
        if (j < g.rows_per_thread && rows.activation_row(place.pass_row(g, j)) >= 0) {
            live |= 1u << j;
        }
    }
    return live;
}

// This thread's K group's slice of the staged step, against its column's weight rows, for
// its live rows (live_rows).
template <int kWeightRows>
__device__ inline void accumulate_step(Accumulators<kWeightRows>& acc, const float* staged,
                                       const TileGeometry& g, const ThreadPlace& place,
                                       const WeightView& w, const std::int64_t* weight_row,
                                       std::int64_t k0, unsigned live) {
    const int begin = place.k_group * g.k_slice;
    for (int kk = begin; kk < begin + g.k_slice; kk += kMxBlockSize) {
        float weights[kWeightRows][kMxBlockSize];
#pragma unroll
        for (int q = 0; q < kWeightRows; ++q) {
            load_weight_block(w, weight_row[q], (k0 + kk) / kMxBlockSize, weights[q]);
        }
        // Guarded, not cut short: the loop must unroll so the accumulators stay in registers.
#pragma unroll
        for (int j = 0; j < kMaxRowsPerThread; ++j) {
            if ((live >> j) & 1u) {
                const float4* a =
                    reinterpret_cast<const float4*>(staged + place.pass_row(g, j) * g.tile_k + kk);
#pragma unroll
                for (int i = 0; i < kMxBlockSize / 4; ++i) {
                    const float4 four = a[i];
#pragma unroll
                    for (int q = 0; q < kWeightRows; ++q) {
                        float sum = acc.value[q][j];
                        sum += four.x * weights[q][4 * i];
                        sum += four.y * weights[q][4 * i + 1];
                        sum += four.z * weights[q][4 * i + 2];
                        sum += four.w * weights[q][4 * i + 3];
                        acc.value[q][j] = sum;
                    }
                }
            }
        }
    }
}

// Adds the other K groups' partial sums into group 0's accumulators, in group order, through
// `staged` (free once the K loop is done). Every thread of the block must call it.
template <int kWeightRows>
__device__ inline void reduce_k_groups(Accumulators<kWeightRows>& acc, float* staged,
                                       const TileGeometry& g, const ThreadPlace& place) {
    if (g.k_groups == 1) return;
    __syncthreads();  // every group is done reading the staged activations
    auto slot = [&](int group, int j, int q) {
        return ((group * kMaxRowsPerThread + j) * g.threads_n + place.lane) * kWeightRows + q;
    };
    if (place.k_group > 0) {
#pragma unroll
        for (int j = 0; j < kMaxRowsPerThread; ++j) {
#pragma unroll
            for (int q = 0; q < kWeightRows; ++q)
                staged[slot(place.k_group, j, q)] = acc.value[q][j];
        }
    }
    __syncthreads();
    if (place.k_group == 0) {
        for (int group = 1; group < g.k_groups; ++group) {
#pragma unroll
            for (int j = 0; j < kMaxRowsPerThread; ++j) {
#pragma unroll
                for (int q = 0; q < kWeightRows; ++q) acc.value[q][j] += staged[slot(group, j, q)];
            }
        }
    }
}

// The K loop of one pass: acc = sum over K in [k_begin, k_end) of activations x weights,
// for this thread's rows (the whole K unless the stage splits K across workgroups).
template <int kWeightRows>
__device__ inline void run_pass_k_loop(Accumulators<kWeightRows>& acc, float* staged,
                                       const TileGeometry& g, const ThreadPlace& place,
                                       const ActivationView& a, const RowSource& rows,
                                       const WeightView& w, const std::int64_t* weight_row,
                                       std::int64_t k_begin, std::int64_t k_end) {
    acc.clear();
    const unsigned live = live_rows(g, place, rows);
    for (std::int64_t k0 = k_begin; k0 < k_end; k0 += g.tile_k) {
        __syncthreads();  // the previous step (or pass) is done with `staged`
        stage_activations(staged, g, a, rows, k0);
        __syncthreads();
        accumulate_step<kWeightRows>(acc, staged, g, place, w, weight_row, k0, live);
    }
    reduce_k_groups<kWeightRows>(acc, staged, g, place);
}

}  // namespace fhmoe::kernels::gpu
