// Stage1 of the matrix path (NVIDIA): gate/up GEMM on the tensor cores (FP16 m16n8k16 on
// FP4/FP8 weights converted in registers, E8M0 scales per 32-wide block), then
// h = SiLU(gate) * up, quantized to MXFP8 in the mma layout by the workgroup itself (fused)
// or stored bf16 for a separate pass. gpu/matrix_args.hpp says how the candidate shapes the
// work; gpu/matrix_layout.hpp the operand layouts.

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares.
#include "gpu/portability.hpp"

#if defined(FHMOE_GPU_VENDOR_NVIDIA)

#include <algorithm>
#include <type_traits>

#include "common/bf16.hpp"
#include "common/mx_block.hpp"
#include "common/portable_silu.hpp"
#include "gpu/dynamic_shared_memory.hpp"
#include "gpu/lane_group_quant.hpp"
#include "gpu/matrix_args.hpp"
#include "gpu/matrix_gemm.hpp"
#include "gpu/matrix_shared_gemm.hpp"
#include "gpu/matrix_staged_activations.hpp"
#include "gpu/matrix_warpgroup_gemm.hpp"

namespace fhmoe::kernels::gpu {
namespace {

// Two builds of each kernel: up to 8 warps (registers up to 255 per thread, so deep K steps
// stay in registers) and up to 16 (128 registers per thread).
constexpr int kSmallStage1Threads = 8 * 32;
constexpr int kMaxStage1Threads = 16 * 32;

__device__ __forceinline__ std::int64_t entry_token_of(std::int32_t entry) {
    return entry & 0xFFFFFF;
}

// The small tiles' K loop, one kernel build each (twin builds, not branches: the staged loop
// beside the plain one cost it 20-50 registers per thread (ptxas -v), a quarter of the resident
// workgroups; the warpgroup loop beside it 15, 127 -> 142 for the default's kernel, and the op
// 5-9 % at 16-64 DSV4 tokens, where it is not taken):
//   plain: the warps' own activation loads (gpu/matrix_gemm.hpp);
//   staged: the staged activations (gpu/matrix_staged_activations.hpp; 8-warp builds only,
//     matrix_stage1_stages_activations);
//   warpgroup: the warpgroup instruction (gpu/matrix_warpgroup_gemm.hpp) for tiles whose real
//     rows are one token group, the plain loop inside the same kernel for the others;
//   warpgroup_only: the warpgroup instruction alone, for launches whose tiles' real rows are all
//     one token group (matrix_tiles_are_one_token_group): without the plain loop beside it the
//     kernel needs fewer registers and instructions (the default's 128 with a spill -> 123,
//     with the one-row loop beside the general one).
enum class SmallTileLoop { plain, staged, warpgroup, warpgroup_only };

// Where one workgroup's rounds keep what the epilogue needs.
struct Stage1Tile {
    std::int64_t tile = 0;
    int split = 0;
    std::int64_t row0 = 0;
    std::int64_t column0 = 0;
    std::int64_t expert = 0;
    bool fp4 = true;
    const int* rows = nullptr;  // shared memory: each tile row's activation row
    float* staging = nullptr;   // shared memory: the h tile (fused)
    int groups = 0;             // token groups holding a real row
    int real_rows = 0;          // rows holding a real token (they come first)
};

// Stores groups [first_group, first_group + G) of one weight tile's sums (h column
// `local_column`): the split's partial sums, or h = SiLU(gate) * up into the staging tile
// (fused) or the bf16 h matrix.
template <int G>
__device__ __forceinline__ void store_sums(const MatrixStage1Args& args, const Stage1Tile& w,
                                           const float (&acc)[G][4], int first_group,
                                           int local_column) {
    const ShapeView& s = args.shape;
    const int t = static_cast<int>(threadIdx.x) & 3;
#pragma unroll
    for (int tg = 0; tg < G; ++tg) {
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            const int r = (first_group + tg) * 8 + 2 * t + q;
            const float gate = acc[tg][q];
            const float up = acc[tg][2 + q];
            if (args.k_splits > 1) {
                if (w.rows[r] >= s.tokens) continue;  // padding: nothing to add up
                float* out = args.partials +
                             (((w.tile * args.k_splits + w.split) * args.tile_m + r) * args.tile_n +
                              local_column) *
                                 2;
                out[0] = gate;
                out[1] = up;
                continue;
            }
            const float h = portable_silu(gate) * up;
            if (args.fused_fp8_out) {
                w.staging[r * args.tile_n + local_column] = h;
            } else {
                args.h_bf16[(w.row0 + r) * s.inter + w.column0 + local_column] = encode_bf16(h);
            }
        }
    }
}

__device__ __forceinline__ void weight_tile_operands(const MatrixStage1Args& args,
                                                     const Stage1Tile& w, std::int64_t weight_tile,
                                                     const std::uint8_t*& weights,
                                                     const std::uint8_t*& scales) {
    const std::int64_t pairs = args.shape.hidden / kPairK;
    if (w.fp4) {
        const std::int64_t base = w.expert * (2 * args.shape.inter / kMmaTileRows) + weight_tile;
        weights = args.w1 + base * pairs * kWarpTileBytes;
        scales = args.w1_scale + base * pairs * 32;
    } else {
        weights = args.shared_w1 + weight_tile * 2 * pairs * kWarpTileBytes;
        scales = args.shared_w1_scale + weight_tile * pairs * 32;
    }
}

// Small token tiles: each warp streams its weight tiles against every token group, the K
// warps split K and add their sums in warp order (deterministic) through shared memory.
// Rounds run one K loop each: streaming them as stage2 does (accumulate_tiles) was measured
// and not kept (its ~20 more registers per thread cost a quarter of the resident workgroups;
// 16-row tiles 2-25 % slower with two rounds, docs/performance.md).
template <int TG, int P, int kThreads, SmallTileLoop kLoop>
__device__ void stage1_small_tile_rounds(const MatrixStage1Args& args, const Stage1Tile& w,
                                         unsigned char* shared_bytes) {
    constexpr bool kStaged = kLoop == SmallTileLoop::staged;
    constexpr bool kWarpgroupOnly = kLoop == SmallTileLoop::warpgroup_only;
    constexpr bool kWarpgroup = kLoop == SmallTileLoop::warpgroup || kWarpgroupOnly;
    constexpr int kStages = matrix_ring_stages(P, kThreads / 32);
    const ShapeView& s = args.shape;
    const int ring_bytes = matrix_ring_bytes_per_warp(P, kThreads / 32);
    float* reduction = reinterpret_cast<float*>(shared_bytes);  // reuses the rings' space
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int wn = warp % args.waves;
    const int kw = warp / args.waves;
    const std::int64_t pairs = s.hidden / kPairK;
    const std::int64_t parts = static_cast<std::int64_t>(args.k_splits) * args.k_waves;
    const std::int64_t part = static_cast<std::int64_t>(w.split) * args.k_waves + kw;
    const std::int64_t first_pair = part * pairs / parts;
    const std::int64_t end_pair = (part + 1) * pairs / parts;

    WarpTileOperands op;
    op.activations = args.a1;
    op.activation_scales = args.a1_scales;
    op.k = s.hidden;
    op.rows = w.rows;
    op.groups = w.groups;
    op.ring = shared_bytes + warp * ring_bytes;
    op.weight_factor = w.fp4 ? kFp4AsFp16Factor : 1.0f;
    if constexpr (kStaged) {
        // After the warps' weight rings, one ring per K-warp group (matrix_stage1_shared_bytes).
        op.activation_ring = shared_bytes + static_cast<int>(blockDim.x) / 32 * ring_bytes +
                             kw * StagedActivationRing<TG, P, kStages>::kBytes;
        op.sharing_warps = args.waves;
        op.share = wn;
        op.barrier = 1 + kw;  // barrier 0 is the workgroup's
    }

    // The warpgroup build (gpu/matrix_warpgroup_gemm.hpp; the host reserved its activation
    // rings) takes the warpgroup loop when the tile's real rows are one token group (the
    // workgroup's warps all agree): each warpgroup its own ring and named barrier (barrier 0 is
    // the workgroup's).
    bool warpgroup = false;
    unsigned b_ring = 0;
    int warpgroup_barrier = 0;
    if constexpr (kWarpgroup) {
        static_assert(matrix_stage1_warpgroup_ring_bytes(P, kThreads / 32) ==
                      kStages * P * 2 * static_cast<int>(kWarpgroupBlockBytes));
        warpgroup = w.groups == 1;
        if constexpr (kWarpgroupOnly) {
            if (!warpgroup) __trap();  // the launch checked its routing for this
        }
        const int warpgroup_index = warp / 4;
        b_ring = static_cast<unsigned>(__cvta_generic_to_shared(shared_bytes)) +
                 static_cast<unsigned>(args.warpgroup_activations_offset) +
                 static_cast<unsigned>(warpgroup_index *
                                       matrix_stage1_warpgroup_ring_bytes(P, kThreads / 32));
        warpgroup_barrier = 1 + warpgroup_index;
    }

    const int rounds = args.tile_n / 8 / args.waves;
    for (int round = 0; round < rounds; ++round) {
        const int local_tile = round * args.waves + wn;
        float acc[TG][4];
#pragma unroll
        for (int tg = 0; tg < TG; ++tg) acc[tg][0] = acc[tg][1] = acc[tg][2] = acc[tg][3] = 0.0f;
        weight_tile_operands(args, w, w.column0 / 8 + local_tile, op.weights, op.weight_scales);
        // The warpgroup loop into the first token group's sums; kOneRow as warpgroup_step's.
        auto warpgroup_loop = [&](auto one_row) {
            constexpr bool kOneRow = decltype(one_row)::value;
            float one[1][4] = {{0.0f, 0.0f, 0.0f, 0.0f}};
            op.weight_factor = w.fp4 ? kFp4AsE4m3Factor : 1.0f;
            if (w.fp4) {
                accumulate_pairs_warpgroup<P, kStages, true, kOneRow>(one, op, first_pair, end_pair,
                                                                      b_ring, warpgroup_barrier);
            } else {
                accumulate_pairs_warpgroup<P, kStages, false, kOneRow>(
                    one, op, first_pair, end_pair, b_ring, warpgroup_barrier);
            }
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[0][v] = one[0][v];
        };
        if (kWarpgroupOnly && w.real_rows == 1) {
            // One real row (every routed tile at 1-4 DSV4 tokens): the loop that skips the
            // padding columns' scales and products. Beside the general loop only in this
            // build: in the one with the mma.sync loop it spilled.
            warpgroup_loop(std::true_type{});
        } else if (kWarpgroupOnly || (kWarpgroup && warpgroup)) {
            warpgroup_loop(std::false_type{});
        } else if constexpr (kStaged) {
            if (w.fp4) {
                accumulate_pairs_staged<TG, P, kStages, true>(acc, op, first_pair, end_pair);
            } else {
                accumulate_pairs_staged<TG, P, kStages, false>(acc, op, first_pair, end_pair);
            }
        } else {
            if (w.fp4) {
                accumulate_range<TG, P, kStages, true>(acc, op, first_pair, end_pair);
            } else {
                accumulate_range<TG, P, kStages, false>(acc, op, first_pair, end_pair);
            }
        }

        if (args.k_waves > 1) {
            // K warps' sums added in warp order: the result never depends on timing. The
            // first barrier: every warp has left its K loop, so the rings' space is free.
            __syncthreads();
            if (kw > 0) {
                float* mine = reduction + ((kw - 1) * args.waves + wn) * 32 * TG * 4;
#pragma unroll
                for (int tg = 0; tg < TG; ++tg) {
#pragma unroll
                    for (int v = 0; v < 4; ++v) mine[(tg * 4 + v) * 32 + lane] = acc[tg][v];
                }
            }
            __syncthreads();
            if (kw == 0) {
                for (int other = 1; other < args.k_waves; ++other) {
                    const float* theirs = reduction + ((other - 1) * args.waves + wn) * 32 * TG * 4;
#pragma unroll
                    for (int tg = 0; tg < TG; ++tg) {
#pragma unroll
                        for (int v = 0; v < 4; ++v) acc[tg][v] += theirs[(tg * 4 + v) * 32 + lane];
                    }
                }
            }
            __syncthreads();  // the next round rewrites the reduction space
        }
        if (kw != 0) continue;
        store_sums<TG>(args, w, acc, 0, local_tile * 8 + (lane >> 2));
    }
}

// Large token tiles (gpu/matrix_shared_gemm.hpp): the workgroup shares each K step's
// activations; the K warps take G = TG / k_waves token groups each of the same weight tile.
template <int G, int TG, int P, int kThreads>
__device__ void stage1_shared_tile_rounds(const MatrixStage1Args& args, const Stage1Tile& w,
                                          unsigned char* shared_bytes) {
    constexpr int kTileM = TG * 8;
    constexpr int kStages = matrix_shared_stages(P, kTileM, kThreads / 32);
    const ShapeView& s = args.shape;
    const int warps_here = static_cast<int>(blockDim.x) / 32;
    const int ring_bytes = matrix_shared_weight_ring_bytes(P, kTileM, kThreads / 32);
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int wn = warp % args.waves;
    const int kw = warp / args.waves;
    const std::int64_t pairs = s.hidden / kPairK;
    const std::int64_t first_pair = w.split * pairs / args.k_splits;
    const std::int64_t end_pair = (w.split + 1) * pairs / args.k_splits;

    SharedTileOperands op;
    op.activations = args.a1_values;
    op.k = s.hidden;
    op.rows = w.rows;
    op.groups = w.groups;
    op.first_group = kw * G;
    op.warp_groups = w.groups - op.first_group < 0   ? 0
                     : w.groups - op.first_group > G ? G
                                                     : w.groups - op.first_group;
    op.weight_ring = shared_bytes + warp * ring_bytes;
    op.activation_ring = reinterpret_cast<uint4*>(shared_bytes + warps_here * ring_bytes);

    const int rounds = args.tile_n / 8 / args.waves;
    for (int round = 0; round < rounds; ++round) {
        const int local_tile = round * args.waves + wn;
        float acc[G][4];
#pragma unroll
        for (int tg = 0; tg < G; ++tg) acc[tg][0] = acc[tg][1] = acc[tg][2] = acc[tg][3] = 0.0f;
        weight_tile_operands(args, w, w.column0 / 8 + local_tile, op.weights, op.weight_scales);
        if (w.fp4) {
            accumulate_pairs_shared<G, kTileM, P, kStages, true>(acc, op, first_pair, end_pair);
        } else {
            accumulate_pairs_shared<G, kTileM, P, kStages, false>(acc, op, first_pair, end_pair);
        }
        store_sums<G>(args, w, acc, op.first_group, local_tile * 8 + (lane >> 2));
    }
}

// KW: the large token tiles' k_waves as a template argument (each its own kernel: one
// workgroup-wide dispatch inside the kernel made the compiler keep 250 registers for all);
// the small tiles read args.k_waves and are built with KW = 1.
template <int TG, int P, int kThreads, int KW, SmallTileLoop kLoop>
__device__ __forceinline__ void stage1_workgroup(MatrixStage1Args args) {
    constexpr bool kStaged = kLoop == SmallTileLoop::staged;
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    const ShapeView& s = args.shape;
    constexpr int kTileM = TG * 8;
    constexpr bool kShared = matrix_uses_shared_tile(kTileM);
    // Everything below reads the routing; stage2 may launch once every workgroup got here (it
    // waits for this kernel before reading h).
    wait_for_previous_kernel();
    allow_next_kernel();
    Stage1Tile w;
    const std::int64_t n_tiles = s.inter / args.tile_n;
    w.tile = blockIdx.x;
    if (args.shared_tiles_first > 0) {
        const std::int64_t valid_tiles = (*args.sorted.valid_rows + kTileM - 1) / kTileM * n_tiles;
        w.tile = matrix_tile_of_workgroup(w.tile, valid_tiles, args.shared_tiles_first);
    }
    w.split = static_cast<int>(blockIdx.y);
    w.row0 = w.tile / n_tiles * kTileM;
    // The routing's row count, this block's expert and the workgroup's first rows' entries,
    // requested together: one round trip before the weight copies rather than three (each
    // index lies within the buffers, sized by the most rows the routing can fill).
    const int valid_rows = *args.sorted.valid_rows;
    const std::int32_t block_expert = args.sorted.block_experts[w.row0 / args.sorted.block_m];
    const std::int32_t first_entry =
        static_cast<int>(threadIdx.x) < kTileM ? args.sorted.sorted_ids[w.row0 + threadIdx.x] : 0;
    if (w.row0 >= valid_rows) return;
    w.column0 = w.tile % n_tiles * args.tile_n;
    w.expert = block_expert;
    w.fp4 = w.expert != s.shared_expert;
    const std::int64_t row0 = w.row0;
    const std::int64_t column0 = w.column0;
    const std::int64_t tile = w.tile;
    const int tile_m = kTileM;

    // Shared memory: the rings (and the small tiles' K reduction reusing them), the rows, the
    // h tile (fused), two flags.
    const int warps_here = static_cast<int>(blockDim.x) / 32;
    int front_bytes = 0;
    if constexpr (kShared) {
        front_bytes = warps_here * matrix_shared_weight_ring_bytes(P, kTileM, kThreads / 32) +
                      matrix_shared_activation_ring_bytes(P, kTileM, kThreads / 32);
    } else {
        const int rings =
            warps_here * matrix_ring_bytes_per_warp(P, kThreads / 32) +
            (kStaged ? args.k_waves * matrix_staged_activation_ring_bytes(
                                          P, kTileM, matrix_ring_stages(P, kThreads / 32))
                     : 0);
        const int reduction = (args.k_waves - 1) * args.waves * 32 * TG * 4 * 4;
        front_bytes = rings > reduction ? rings : reduction;
    }
    int* rows = reinterpret_cast<int*>(shared_bytes + front_bytes);
    float* staging = reinterpret_cast<float*>(shared_bytes + front_bytes + tile_m * 4);
    int* flags = reinterpret_cast<int*>(staging + (args.fused_fp8_out ? tile_m * args.tile_n : 0));
    int& real_rows = flags[0];  // a block's real rows come first, then its padding
    int& is_last = flags[1];

    const int threads = static_cast<int>(blockDim.x);
    if (threadIdx.x == 0) real_rows = tile_m;
    for (int i = static_cast<int>(threadIdx.x); i < tile_m; i += threads) {
        const std::int64_t token =
            entry_token_of(i < threads ? first_entry : args.sorted.sorted_ids[row0 + i]);
        rows[i] = static_cast<int>(token < s.tokens ? token : s.tokens);  // row M is zeros
    }
    __syncthreads();
    for (int i = static_cast<int>(threadIdx.x); i < tile_m; i += threads) {
        if (rows[i] >= s.tokens && (i == 0 || rows[i - 1] < s.tokens)) real_rows = i;
    }
    __syncthreads();
    w.rows = rows;
    w.staging = staging;
    w.groups = (real_rows + 7) / 8;
    w.real_rows = real_rows;

    const int warp = static_cast<int>(threadIdx.x) >> 5;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    if constexpr (kShared) {
        stage1_shared_tile_rounds<TG / KW, TG, P, kThreads>(args, w, shared_bytes);
    } else {
        stage1_small_tile_rounds<TG, P, kThreads, kLoop>(args, w, shared_bytes);
    }
    if (args.k_splits > 1) {
        // The last workgroup of this tile to finish adds the splits, in split order.
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned done = atomicAdd(args.split_counters + tile, 1u);
            is_last = done + 1 == static_cast<unsigned>(args.k_splits) ? 1 : 0;
        }
        __syncthreads();
        if (is_last == 0) return;
        __threadfence();
        if (threadIdx.x == 0) args.split_counters[tile] = 0;  // ready for the next run
        constexpr int kBatch = 8;  // splits read before the first is added: latency overlaps
        for (int i = static_cast<int>(threadIdx.x); i < real_rows * args.tile_n; i += threads) {
            const int r = i / args.tile_n;
            const int c = i % args.tile_n;
            float gate = 0.0f;
            float up = 0.0f;
            for (int k0 = 0; k0 < args.k_splits; k0 += kBatch) {
                float2 part[kBatch];
#pragma unroll
                for (int b = 0; b < kBatch; ++b) {
                    if (k0 + b < args.k_splits) {
                        part[b] = __ldcg(reinterpret_cast<const float2*>(
                            args.partials +
                            (((tile * args.k_splits + k0 + b) * tile_m + r) * args.tile_n + c) *
                                2));
                    }
                }
#pragma unroll
                for (int b = 0; b < kBatch; ++b) {
                    if (k0 + b < args.k_splits) {
                        gate += part[b].x;
                        up += part[b].y;
                    }
                }
            }
            const float h = portable_silu(gate) * up;
            if (args.fused_fp8_out) {
                staging[i] = h;
            } else {
                args.h_bf16[(row0 + r) * s.inter + column0 + c] = encode_bf16(h);
            }
        }
    }
    if (!args.fused_fp8_out) return;

    // Each warp quantizes whole 1x32 blocks, one element per lane; the real rows only (stage2
    // reads a padding row's h only into sums it never stores: at one DSV4 token 15 of a 16-row
    // tile's rows are padding, and quantizing them lengthened the op's critical path).
    __syncthreads();
    const int blocks_per_row = args.tile_n / kMxBlockSize;
    for (int i = warp; i < real_rows * blocks_per_row; i += warps_here) {
        const int r = i / blocks_per_row;
        const int b = i % blocks_per_row;
        const std::int64_t block = column0 / kMxBlockSize + b;
        std::uint8_t scale = 0;
        const std::uint8_t code =
            quantize_mx_fp8_by_lanes(staging[r * args.tile_n + b * kMxBlockSize + lane], scale);
        args.h_codes[mma_code_offset(row0 + r, block, lane, s.inter)] = code;
        if (lane == 0) {
            args.h_scales[(row0 + r) * (s.inter / kMxBlockSize) + block] =
                mx_scale_factor_bf16(scale);
        }
        if (args.h_values != nullptr) {
            args.h_values[activation_bf16_index(row0 + r, block, lane, s.inter)] =
                mx_fp8_value_as_bf16(code, scale);
        }
    }
}

template <int TG, int P, int kThreads, int KW, SmallTileLoop kLoop = SmallTileLoop::plain>
__global__ void __launch_bounds__(kThreads) matrix_stage1_kernel(MatrixStage1Args args) {
    stage1_workgroup<TG, P, kThreads, KW, kLoop>(args);
}

// The warpgroup builds (small tiles) whose plain twin fits 128 registers a thread are held to
// it (two workgroups of kThreads per multiprocessor): the warpgroup loop beside the fallback
// took 142 in the default's kernel, and the resident workgroups with them. Their own kernel:
// a minimum-workgroups bound of 1 on the plain builds made the compiler give them more
// registers (the default's 127 -> 136) and the op 6-31 % slower at 16-64 DSV4 tokens.
template <int TG, int P, int kThreads>
constexpr int kStage1WarpgroupMinWorkgroups = kThreads == kSmallStage1Threads &&
                                                      ((TG <= 2 && P <= 2) || (TG <= 4 && P == 1))
                                                  ? 2
                                                  : 1;

template <int TG, int P, int kThreads, SmallTileLoop kLoop>
__global__ void __launch_bounds__(kThreads, (kStage1WarpgroupMinWorkgroups<TG, P, kThreads>))
    matrix_stage1_warpgroup_kernel(MatrixStage1Args args) {
    stage1_workgroup<TG, P, kThreads, 1, kLoop>(args);
}

using Stage1Kernel = void (*)(MatrixStage1Args);

template <int TG, int P, int kThreads>
Stage1Kernel pick_for_k_waves(int k_waves, SmallTileLoop loop) {
    if constexpr (matrix_uses_shared_tile(TG * 8)) {
        switch (k_waves) {
            case 1: return &matrix_stage1_kernel<TG, P, kThreads, 1>;
            case 2: return &matrix_stage1_kernel<TG, P, kThreads, 2>;
            default: return &matrix_stage1_kernel<TG, P, kThreads, 4>;
        }
    } else {
        if (loop == SmallTileLoop::warpgroup) {
            return &matrix_stage1_warpgroup_kernel<TG, P, kThreads, SmallTileLoop::warpgroup>;
        }
        if (loop == SmallTileLoop::warpgroup_only) {
            return &matrix_stage1_warpgroup_kernel<TG, P, kThreads, SmallTileLoop::warpgroup_only>;
        }
        if constexpr (kThreads == kSmallStage1Threads) {
            if (loop == SmallTileLoop::staged)
                return &matrix_stage1_kernel<TG, P, kThreads, 1, SmallTileLoop::staged>;
        }
        return &matrix_stage1_kernel<TG, P, kThreads, 1>;
    }
}

template <int TG, int kThreads>
Stage1Kernel pick_for_step(int pairs_per_step, int k_waves, SmallTileLoop loop) {
    switch (pairs_per_step) {
        case 1: return pick_for_k_waves<TG, 1, kThreads>(k_waves, loop);
        case 2: return pick_for_k_waves<TG, 2, kThreads>(k_waves, loop);
        default: return pick_for_k_waves<TG, 4, kThreads>(k_waves, loop);
    }
}

template <int kThreads>
Stage1Kernel pick_for_tile(int tile_m, int pairs_per_step, int k_waves, SmallTileLoop loop) {
    switch (tile_m) {
        case 16: return pick_for_step<2, kThreads>(pairs_per_step, k_waves, loop);
        case 32: return pick_for_step<4, kThreads>(pairs_per_step, k_waves, loop);
        case 64: return pick_for_step<8, kThreads>(pairs_per_step, k_waves, loop);
        default: return pick_for_step<16, kThreads>(pairs_per_step, k_waves, loop);
    }
}

Stage1Kernel pick_kernel(int tile_m, int tile_k, int threads, int k_waves, SmallTileLoop loop) {
    const int step = matrix_pairs_per_step(tile_k);
    return threads <= kSmallStage1Threads
               ? pick_for_tile<kSmallStage1Threads>(tile_m, step, k_waves, loop)
               : pick_for_tile<kMaxStage1Threads>(tile_m, step, k_waves, loop);
}

// The kernel, its dynamic shared memory allowed (gpu/dynamic_shared_memory.hpp).
Stage1Kernel prepared_kernel(int tile_m, int tile_n, int tile_k, int waves, int k_waves, bool fused,
                             bool staged, bool warpgroup, bool warpgroup_only, int& shared_bytes) {
    const SmallTileLoop loop = warpgroup && warpgroup_only ? SmallTileLoop::warpgroup_only
                               : warpgroup                 ? SmallTileLoop::warpgroup
                               : staged                    ? SmallTileLoop::staged
                                                           : SmallTileLoop::plain;
    const Stage1Kernel kernel = pick_kernel(tile_m, tile_k, waves * k_waves * 32, k_waves, loop);
    shared_bytes =
        matrix_stage1_shared_bytes(tile_m, tile_n, tile_k, waves, k_waves, fused, staged);
    allow_dynamic_shared_memory(kernel, shared_bytes);
    return kernel;
}

}  // namespace

int matrix_stage1_k_splits(std::int64_t tiles, int workgroups_per_multiprocessor, int k_waves,
                           std::int64_t k_pairs, int pairs_per_step, int multiprocessors) {
    const std::int64_t one_wave =
        static_cast<std::int64_t>(multiprocessors) * std::max(workgroups_per_multiprocessor, 1);
    std::int64_t splits = one_wave / std::max<std::int64_t>(tiles, 1);
    const std::int64_t most = std::max<std::int64_t>(k_pairs / (k_waves * pairs_per_step), 1);
    splits = std::clamp<std::int64_t>(splits, 1, std::min<std::int64_t>(most, kMatrixMaxKSplits));
    return static_cast<int>(splits);
}

int matrix_stage1_workgroups_per_multiprocessor(int tile_m, int tile_n, int tile_k, int waves,
                                                int k_waves, bool fused, bool staged,
                                                int warpgroup_activation_bytes,
                                                bool warpgroup_only) {
    int shared_bytes = 0;
    const Stage1Kernel kernel =
        prepared_kernel(tile_m, tile_n, tile_k, waves, k_waves, fused, staged,
                        warpgroup_activation_bytes > 0, warpgroup_only, shared_bytes);
    if (warpgroup_activation_bytes > 0) {
        shared_bytes =
            matrix_warpgroup_activations_offset(shared_bytes) + warpgroup_activation_bytes;
        allow_dynamic_shared_memory(kernel, shared_bytes);
    }
    int blocks = 0;
    FHMOE_GPU_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, reinterpret_cast<const void*>(kernel), waves * k_waves * 32,
        static_cast<std::size_t>(shared_bytes)));
    return blocks > 0 ? blocks : 1;
}

void launch_matrix_stage1(const MatrixStage1Args& args, std::int64_t tiles, int tile_k,
                          hipStream_t stream) {
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(args.k_splits));
    const int threads = args.waves * args.k_waves * 32;
    int shared_bytes = 0;
    const Stage1Kernel kernel =
        prepared_kernel(args.tile_m, args.tile_n, tile_k, args.waves, args.k_waves,
                        args.fused_fp8_out, args.staged_activations,
                        args.warpgroup_activation_bytes > 0, args.warpgroup_only, shared_bytes);
    MatrixStage1Args launched = args;
    if (args.warpgroup_activation_bytes > 0) {
        launched.warpgroup_activations_offset = matrix_warpgroup_activations_offset(shared_bytes);
        shared_bytes = launched.warpgroup_activations_offset + args.warpgroup_activation_bytes;
        allow_dynamic_shared_memory(kernel, shared_bytes);
    }
    launch_dependent(kernel, grid, dim3(static_cast<unsigned>(threads)),
                     static_cast<std::size_t>(shared_bytes), stream, launched);
}

}  // namespace fhmoe::kernels::gpu

#endif  // FHMOE_GPU_VENDOR_NVIDIA
