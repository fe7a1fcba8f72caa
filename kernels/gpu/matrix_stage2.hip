// Stage2 of the matrix path (NVIDIA): the down GEMM on the tensor cores against h (MXFP8,
// mma layout, one row per sorted row), times the routing weight, accumulated into the bf16
// output with one 32-bit atomic per column pair (atomic), or stored per slot for the slot
// reduction (reduce). `persistent` runs a fixed grid that takes tiles from a counter.

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares.
#include "gpu/portability.hpp"

#if defined(FHMOE_GPU_VENDOR_NVIDIA)

#include <cuda_bf16.h>

#include "gpu/dynamic_shared_memory.hpp"
#include "gpu/matrix_args.hpp"
#include "gpu/matrix_gemm.hpp"
#include "gpu/matrix_shared_gemm.hpp"
#include "gpu/matrix_warpgroup_gemm.hpp"

namespace fhmoe::kernels::gpu {
namespace {

constexpr int kThreads = kMatrixStage2Warps * 32;

// Groups [first_group, first_group + G) of one weight tile's sums (output columns `column`,
// `column` + 1) times the routing weight: one 32-bit atomic per column pair (atomic) or a store
// into the token's slot row (reduce). Padding rows add nothing.
template <int G>
__device__ __forceinline__ void store_columns(const MatrixStage2Args& args,
                                              const float (&acc)[G][4], int first_group, int groups,
                                              std::int64_t row0, std::int64_t column) {
    const ShapeView& s = args.shape;
    const int t = static_cast<int>(threadIdx.x) & 3;
#pragma unroll
    for (int tg = 0; tg < G; ++tg) {
        if (first_group + tg >= groups) break;
#pragma unroll
        for (int q = 0; q < 2; ++q) {
            const std::int64_t row = row0 + (first_group + tg) * 8 + 2 * t + q;
            const std::int32_t entry = args.sorted.sorted_ids[row];
            const std::int64_t token = entry & 0xFFFFFF;
            if (token >= s.tokens) continue;  // padding row
            const float weight = args.sorted.sorted_weights[row];
            const __nv_bfloat162 pair =
                __floats2bfloat162_rn(acc[tg][q] * weight, acc[tg][2 + q] * weight);
            if (args.atomic) {
                atomicAdd(
                    reinterpret_cast<__nv_bfloat162*>(args.out_bf16 + token * s.hidden + column),
                    pair);
            } else {
                const std::int64_t slot_row = token * s.topk + (entry >> 24);
                *reinterpret_cast<__nv_bfloat162*>(args.slot_out + slot_row * s.hidden + column) =
                    pair;
            }
        }
    }
}

// Where one workgroup's tile starts and what its rows are.
struct Stage2Tile {
    std::int64_t row0 = 0;
    std::int64_t column0 = 0;
    std::int64_t expert = 0;
    bool fp4 = true;
    const int* rows = nullptr;  // shared memory: the tile's sorted rows
    int groups = 0;             // token groups holding a real row
    int real_rows = 0;          // the tile's real rows (the first ones)
};

__device__ __forceinline__ void stage2_weight_operands(const MatrixStage2Args& args,
                                                       const Stage2Tile& w,
                                                       std::int64_t weight_tile,
                                                       const std::uint8_t*& weights,
                                                       const std::uint8_t*& scales) {
    const std::int64_t pairs = args.shape.inter / kPairK;
    if (w.fp4) {
        const std::int64_t base = w.expert * (args.shape.hidden / kMmaTileRows) + weight_tile;
        weights = args.w2 + base * pairs * kWarpTileBytes;
        scales = args.w2_scale + base * pairs * 32;
    } else {
        weights = args.shared_w2 + weight_tile * 2 * pairs * kWarpTileBytes;
        scales = args.shared_w2_scale + weight_tile * pairs * 32;
    }
}

// Small token tiles: min(8, tiles) warps take the weight tiles, the rest split K and add
// their sums in warp order through shared memory.
// kStreamTiles: a warp with several rounds streams its tiles as one K loop (accumulate_tiles);
// off in the persistent kernel and for steps of 4 pairs (which do not divide DSV4's 6), where it
// cost 10-30 registers per thread and with them half the workgroups a multiprocessor holds.
// kWarpgroupOnly: the build for launches whose tiles' real rows are all one token group
// (matrix_tiles_are_one_token_group) and that take the warpgroup stream
// (matrix_stage2_uses_warpgroup_mma): that loop alone, without the mma.sync loops beside it,
// needs 72 registers a thread where the kernel took 127 (room for a third workgroup per
// multiprocessor).
// kShallow: the shallow ring (matrix_stage2_takes_shallow_ring).
template <int TG, int P, bool kStreamTiles, bool kWarpgroupOnly, bool kShallow>
__device__ void stage2_small_tile_rounds(const MatrixStage2Args& args, const Stage2Tile& w,
                                         unsigned char* shared_bytes, float* reduction) {
    constexpr int kStages = matrix_stage2_ring_stages(P, kShallow);
    constexpr int ring_bytes = matrix_ring_bytes(kStages, P);
    const ShapeView& s = args.shape;
    const int weight_tiles_here = args.tile_n / kMmaTileRows;
    const int warps_n =
        weight_tiles_here < kMatrixStage2Warps ? weight_tiles_here : kMatrixStage2Warps;
    const int k_groups = kMatrixStage2Warps / warps_n;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int wn = warp % warps_n;
    const int kg = warp / warps_n;
    const std::int64_t pairs = s.inter / kPairK;
    const std::int64_t first_pair = kg * pairs / k_groups;
    const std::int64_t end_pair = (kg + 1) * pairs / k_groups;

    WarpTileOperands op;
    op.activations = args.h_codes;
    op.activation_scales = args.h_scales;
    op.k = s.inter;
    op.rows = w.rows;
    op.groups = w.groups;
    op.ring = shared_bytes + warp * ring_bytes;
    op.weight_factor = w.fp4 ? kFp4AsFp16Factor : 1.0f;
    op.wait_before_reads = true;  // h is stage1's (or the quantization's) output

    const int rounds = weight_tiles_here / warps_n;
    if (kWarpgroupOnly || (kStreamTiles && k_groups == 1 && rounds > 1 && pairs % P == 0)) {
        // Each warp streams its rounds' tiles, consecutive ones, as one K loop.
        const int first_tile = wn * rounds;
        stage2_weight_operands(args, w, w.column0 / kMmaTileRows + first_tile, op.weights,
                               op.weight_scales);
        auto store = [&](const float(&acc)[TG][4], int tile) {
            store_columns<TG>(args, acc, 0, w.groups, w.row0,
                              w.column0 + (first_tile + tile) * kMmaTileRows + 2 * (lane >> 2));
        };
        if constexpr (kWarpgroupOnly) {
            if (w.groups != 1) __trap();  // the launch checked its routing for this
        }
        if (kWarpgroupOnly || (args.warpgroup_activations_offset >= 0 && w.groups == 1)) {
            // The warpgroup instruction (gpu/matrix_warpgroup_gemm.hpp): both warpgroups of
            // the workgroup stream their tiles against one copy of the group's h rows.
            const unsigned b_shared =
                static_cast<unsigned>(__cvta_generic_to_shared(shared_bytes)) +
                static_cast<unsigned>(args.warpgroup_activations_offset);
            op.weight_factor = w.fp4 ? kFp4AsE4m3Factor : 1.0f;
            auto store_one = [&](const float(&one)[1][4], int tile) {
                float sums[TG][4] = {};
#pragma unroll
                for (int v = 0; v < 4; ++v) sums[0][v] = one[0][v];
                store(sums, tile);
            };
            const int k_pairs = static_cast<int>(pairs);
            if (w.fp4) {
                if (w.real_rows == 1) {
                    accumulate_tiles_warpgroup<P, kStages, true, true>(op, k_pairs, rounds,
                                                                       store_one, b_shared);
                } else {
                    accumulate_tiles_warpgroup<P, kStages, true, false>(op, k_pairs, rounds,
                                                                        store_one, b_shared);
                }
            } else if (w.real_rows == 1) {
                accumulate_tiles_warpgroup<P, kStages, false, true>(op, k_pairs, rounds, store_one,
                                                                    b_shared);
            } else {
                accumulate_tiles_warpgroup<P, kStages, false, false>(op, k_pairs, rounds, store_one,
                                                                     b_shared);
            }
            return;
        }
        if (w.fp4) {
            accumulate_tiles<TG, P, kStages, true>(op, static_cast<int>(pairs), rounds, store);
        } else {
            accumulate_tiles<TG, P, kStages, false>(op, static_cast<int>(pairs), rounds, store);
        }
        return;
    }
    if constexpr (!kWarpgroupOnly) {  // the stream above took every tile of that build
        for (int round = 0; round < rounds; ++round) {
            const int local_tile = round * warps_n + wn;
            float acc[TG][4];
#pragma unroll
            for (int tg = 0; tg < TG; ++tg)
                acc[tg][0] = acc[tg][1] = acc[tg][2] = acc[tg][3] = 0.0f;
            stage2_weight_operands(args, w, w.column0 / kMmaTileRows + local_tile, op.weights,
                                   op.weight_scales);
            if (w.fp4) {
                accumulate_range<TG, P, kStages, true>(acc, op, first_pair, end_pair);
            } else {
                accumulate_range<TG, P, kStages, false>(acc, op, first_pair, end_pair);
            }
            if (k_groups > 1) {
                if (kg > 0) {
                    float* mine = reduction + ((kg - 1) * warps_n + wn) * 32 * TG * 4;
#pragma unroll
                    for (int tg = 0; tg < TG; ++tg) {
#pragma unroll
                        for (int v = 0; v < 4; ++v) mine[(tg * 4 + v) * 32 + lane] = acc[tg][v];
                    }
                }
                __syncthreads();
                if (kg == 0) {
                    for (int other = 1; other < k_groups; ++other) {
                        const float* theirs =
                            reduction + ((other - 1) * warps_n + wn) * 32 * TG * 4;
#pragma unroll
                        for (int tg = 0; tg < TG; ++tg) {
#pragma unroll
                            for (int v = 0; v < 4; ++v)
                                acc[tg][v] += theirs[(tg * 4 + v) * 32 + lane];
                        }
                    }
                }
                __syncthreads();
            }
            if (kg != 0) continue;
            store_columns<TG>(args, acc, 0, w.groups, w.row0,
                              w.column0 + local_tile * kMmaTileRows + 2 * (lane >> 2));
        }
    }
}

// Large token tiles (gpu/matrix_shared_gemm.hpp): the warps share each K step's h rows; the
// warps beyond the weight tiles take G = TG / (8 / tiles) token groups each of the same tile.
template <int G, int TG, int P>
__device__ void stage2_shared_tile_rounds(const MatrixStage2Args& args, const Stage2Tile& w,
                                          unsigned char* shared_bytes) {
    constexpr int kTileM = TG * 8;
    constexpr int kStages = matrix_shared_stages(P, kTileM, kMatrixStage2Warps);
    const int ring_bytes = matrix_shared_weight_ring_bytes(P, kTileM, kMatrixStage2Warps);
    const ShapeView& s = args.shape;
    const int weight_tiles_here = args.tile_n / kMmaTileRows;
    const int warps_n =
        weight_tiles_here < kMatrixStage2Warps ? weight_tiles_here : kMatrixStage2Warps;
    const int warp = static_cast<int>(threadIdx.x) >> 5;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int wn = warp % warps_n;
    const int kg = warp / warps_n;

    SharedTileOperands op;
    op.activations = args.h_values;
    op.k = s.inter;
    op.rows = w.rows;
    op.groups = w.groups;
    op.first_group = kg * G;
    op.warp_groups = w.groups - op.first_group < 0   ? 0
                     : w.groups - op.first_group > G ? G
                                                     : w.groups - op.first_group;
    op.weight_ring = shared_bytes + warp * ring_bytes;
    op.activation_ring = reinterpret_cast<uint4*>(shared_bytes + kMatrixStage2Warps * ring_bytes);

    const int rounds = weight_tiles_here / warps_n;
    for (int round = 0; round < rounds; ++round) {
        const int local_tile = round * warps_n + wn;
        float acc[G][4];
#pragma unroll
        for (int tg = 0; tg < G; ++tg) acc[tg][0] = acc[tg][1] = acc[tg][2] = acc[tg][3] = 0.0f;
        stage2_weight_operands(args, w, w.column0 / kMmaTileRows + local_tile, op.weights,
                               op.weight_scales);
        if (w.fp4) {
            accumulate_pairs_shared<G, kTileM, P, kStages, true>(acc, op, 0, s.inter / kPairK);
        } else {
            accumulate_pairs_shared<G, kTileM, P, kStages, false>(acc, op, 0, s.inter / kPairK);
        }
        store_columns<G>(args, acc, op.first_group, w.groups, w.row0,
                         w.column0 + local_tile * kMmaTileRows + 2 * (lane >> 2));
    }
}

template <int TG, int P, bool kStreamTiles, bool kWarpgroupOnly, bool kShallow>
__device__ void run_stage2_tile(const MatrixStage2Args& args, std::int64_t tile,
                                unsigned char* shared_bytes) {
    const ShapeView& s = args.shape;
    constexpr int kTileM = TG * 8;
    constexpr bool kShared = matrix_uses_shared_tile(kTileM);
    const std::int64_t n_tiles = s.hidden / args.tile_n;
    if (args.shared_tiles_first > 0) {
        const std::int64_t valid_tiles = (*args.sorted.valid_rows + kTileM - 1) / kTileM * n_tiles;
        tile = matrix_tile_of_workgroup(tile, valid_tiles, args.shared_tiles_first);
    }
    Stage2Tile w;
    w.row0 = tile / n_tiles * kTileM;
    w.column0 = tile % n_tiles * args.tile_n;
    // The routing's row count, this block's expert and the tile's rows' entries (a thread per
    // row: kTileM <= kThreads), requested together: one round trip before the weight copies
    // rather than three (each index lies within the buffers, sized by the most rows the routing
    // can fill).
    static_assert(kTileM <= kThreads);
    const int valid_rows = *args.sorted.valid_rows;
    const std::int32_t block_expert = args.sorted.block_experts[w.row0 / args.sorted.block_m];
    const int me = static_cast<int>(threadIdx.x);
    const std::int32_t my_entry = me < kTileM ? args.sorted.sorted_ids[w.row0 + me] : 0;
    const std::int32_t previous_entry =
        me < kTileM && me > 0 ? args.sorted.sorted_ids[w.row0 + me - 1] : 0;
    if (w.row0 >= valid_rows) return;
    w.expert = block_expert;
    w.fp4 = w.expert != s.shared_expert;

    const int weight_tiles_here = args.tile_n / kMmaTileRows;
    const int warps_n =
        weight_tiles_here < kMatrixStage2Warps ? weight_tiles_here : kMatrixStage2Warps;
    const int k_groups = kMatrixStage2Warps / warps_n;
    // Shared memory: the rings, the rows, the small tiles' K reduction, the real row count.
    const int front_bytes =
        kShared
            ? kMatrixStage2Warps * matrix_shared_weight_ring_bytes(P, kTileM, kMatrixStage2Warps) +
                  matrix_shared_activation_ring_bytes(P, kTileM, kMatrixStage2Warps)
            : kMatrixStage2Warps * matrix_ring_bytes(matrix_stage2_ring_stages(P, kShallow), P);
    int* rows = reinterpret_cast<int*>(shared_bytes + front_bytes);
    float* reduction = reinterpret_cast<float*>(shared_bytes + front_bytes + kTileM * 4);
    int& real_rows =
        *reinterpret_cast<int*>(reduction + (kShared ? 0 : (k_groups - 1) * warps_n * 32 * TG * 4));
    if (threadIdx.x == 0) real_rows = kTileM;
    if (me < kTileM) rows[me] = static_cast<int>(w.row0 + me);
    __syncthreads();
    // A block's real rows come first, then its padding; a tile of padding only does nothing.
    if (me < kTileM) {
        const bool padding = (my_entry & 0xFFFFFF) >= s.tokens;
        const bool previous_real = me > 0 && (previous_entry & 0xFFFFFF) < s.tokens;
        if (padding && (me == 0 || previous_real)) real_rows = me;
    }
    __syncthreads();
    w.rows = rows;
    w.groups = (real_rows + 7) / 8;
    w.real_rows = real_rows;
    if (w.groups == 0) return;
    if constexpr (kShared) {
        // The first K step copies h rows with the weights: wait for h's writer first.
        wait_for_previous_kernel();
        if (k_groups == 1) {
            stage2_shared_tile_rounds<TG, TG, P>(args, w, shared_bytes);
        } else {
            stage2_shared_tile_rounds<TG / 2, TG, P>(args, w, shared_bytes);
        }
    } else {
        stage2_small_tile_rounds<TG, P, kStreamTiles, kWarpgroupOnly, kShallow>(
            args, w, shared_bytes, reduction);
    }
}

// Two workgroups per multiprocessor where the kernel needs no more than 128 registers a thread
// (accumulate_tiles' one-group loop beside its general one made the compiler take up to 155
// without the bound, and half the resident workgroups with them).
template <int TG, int P>
constexpr int kStage2MinWorkgroups = (TG <= 2 && P <= 2) || (TG <= 4 && P == 1) ? 2 : 1;

template <int TG, int P, bool kWarpgroupOnly, bool kShallow>
__global__ void __launch_bounds__(kThreads, (kStage2MinWorkgroups<TG, P>))
    matrix_stage2_kernel(MatrixStage2Args args) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    run_stage2_tile<TG, P, (P <= 2), kWarpgroupOnly, kShallow>(args, blockIdx.x, shared_bytes);
}

template <int TG, int P>
__global__ void __launch_bounds__(kThreads) matrix_stage2_persistent_kernel(MatrixStage2Args args) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    __shared__ unsigned int taken;
    const std::int64_t tiles = static_cast<std::int64_t>(*args.sorted.valid_rows) / (TG * 8) *
                               (args.shape.hidden / args.tile_n);
    for (;;) {
        if (threadIdx.x == 0) taken = atomicAdd(args.tile_counter, 1u);
        __syncthreads();
        const std::int64_t tile = taken;
        __syncthreads();  // everyone has read `taken` before thread 0 overwrites it
        if (tile >= tiles) return;
        run_stage2_tile<TG, P, false, false, false>(args, tile, shared_bytes);
        __syncthreads();  // the next tile rewrites the rows in shared memory
    }
}

using Stage2Kernel = void (*)(MatrixStage2Args);

// The kernel for one step size, ring depth (kShallow: not persistent) and build.
template <int TG, int P, bool kShallow>
Stage2Kernel pick_for_ring(bool persistent, bool warpgroup_only) {
    if (!kShallow && persistent) return &matrix_stage2_persistent_kernel<TG, P>;
    if constexpr (!matrix_uses_shared_tile(TG * 8)) {
        if (warpgroup_only) return &matrix_stage2_kernel<TG, P, true, kShallow>;
    }
    return &matrix_stage2_kernel<TG, P, false, kShallow>;
}

template <int TG>
Stage2Kernel pick_for_step(bool persistent, int pairs_per_step, bool warpgroup_only, bool shallow) {
    if constexpr (!matrix_uses_shared_tile(TG * 8)) {
        // Shallow rings for the small tiles only (the large tiles' rings are their own).
        if (shallow && !persistent && pairs_per_step <= 2) {
            return pairs_per_step == 1 ? pick_for_ring<TG, 1, true>(false, warpgroup_only)
                                       : pick_for_ring<TG, 2, true>(false, warpgroup_only);
        }
    }
    switch (pairs_per_step) {
        case 1: return pick_for_ring<TG, 1, false>(persistent, warpgroup_only && !persistent);
        case 2: return pick_for_ring<TG, 2, false>(persistent, warpgroup_only && !persistent);
        default: return pick_for_ring<TG, 4, false>(persistent, false);
    }
}

Stage2Kernel pick_kernel(int tile_m, bool persistent, int pairs_per_step, bool warpgroup_only,
                         bool shallow) {
    switch (tile_m) {
        case 8: return pick_for_step<1>(persistent, pairs_per_step, warpgroup_only, shallow);
        case 16: return pick_for_step<2>(persistent, pairs_per_step, warpgroup_only, shallow);
        case 32: return pick_for_step<4>(persistent, pairs_per_step, warpgroup_only, shallow);
        case 64: return pick_for_step<8>(persistent, pairs_per_step, warpgroup_only, shallow);
        default: return pick_for_step<16>(persistent, pairs_per_step, warpgroup_only, shallow);
    }
}

// Workgroups of the kernel a multiprocessor holds, its dynamic shared memory allowed.
int workgroups_per_multiprocessor(Stage2Kernel kernel, int shared_bytes) {
    allow_dynamic_shared_memory(kernel, shared_bytes);
    int blocks = 0;
    FHMOE_GPU_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, reinterpret_cast<const void*>(kernel), kThreads,
        static_cast<std::size_t>(shared_bytes)));
    return blocks > 0 ? blocks : 1;
}

// The dynamic shared memory a launch takes: the rings and rows (matrix_stage2_shared_bytes),
// then the warpgroup loop's activations where it has them (their offset into `offset`).
int launch_shared_bytes(int tile_m, int tile_n, int tile_k, bool shallow,
                        int warpgroup_activation_bytes, int& offset) {
    const int bytes = matrix_stage2_shared_bytes(tile_m, tile_n, tile_k, shallow);
    if (warpgroup_activation_bytes <= 0) return bytes;
    offset = matrix_warpgroup_activations_offset(bytes);
    return offset + warpgroup_activation_bytes;
}

}  // namespace

void launch_matrix_stage2(const MatrixStage2Args& args, std::int64_t tiles, int tile_k,
                          int workgroups, bool early, hipStream_t stream) {
    const Stage2Kernel kernel =
        pick_kernel(args.tile_m, args.persistent, matrix_pairs_per_step(tile_k),
                    args.warpgroup_only, args.shallow_ring);
    MatrixStage2Args launched = args;
    const int shared_bytes =
        launch_shared_bytes(args.tile_m, args.tile_n, tile_k, args.shallow_ring,
                            args.warpgroup_activation_bytes, launched.warpgroup_activations_offset);
    allow_dynamic_shared_memory(kernel, shared_bytes);
    if (args.persistent) {
        FHMOE_GPU_CHECK(hipMemsetAsync(args.tile_counter, 0, sizeof(std::uint32_t), stream));
    }
    const auto grid = static_cast<unsigned>(args.persistent ? workgroups : tiles);
    // With `early`, launched under stage1 (gpu/dependent_launch.hpp): the routing it reads
    // first was complete before any stage1 workgroup let stage2 start; h is read after the wait.
    launch_dependent(kernel, dim3(grid), dim3(kThreads), static_cast<std::size_t>(shared_bytes),
                     stream, launched, early);
}

int matrix_stage2_workgroups_per_multiprocessor(int tile_m, int tile_n, int tile_k) {
    return workgroups_per_multiprocessor(
        pick_kernel(tile_m, true, matrix_pairs_per_step(tile_k), false, false),
        matrix_stage2_shared_bytes(tile_m, tile_n, tile_k));
}

bool matrix_stage2_takes_shallow_ring(int tile_m, int tile_n, int tile_k, bool persistent,
                                      bool warpgroup_only, int warpgroup_activation_bytes,
                                      std::int64_t tiles, int multiprocessors) {
    const int step = matrix_pairs_per_step(tile_k);
    if (persistent || matrix_uses_shared_tile(tile_m) || step > 2) return false;
    // The build the launch takes, with the shared memory it launches with.
    const auto one_wave = [&](bool shallow) {
        int offset = 0;
        return static_cast<std::int64_t>(multiprocessors) *
               workgroups_per_multiprocessor(
                   pick_kernel(tile_m, false, step, warpgroup_only, shallow),
                   launch_shared_bytes(tile_m, tile_n, tile_k, shallow, warpgroup_activation_bytes,
                                       offset));
    };
    return tiles > one_wave(false) && tiles <= one_wave(true);
}

}  // namespace fhmoe::kernels::gpu

#endif  // FHMOE_GPU_VENDOR_NVIDIA
