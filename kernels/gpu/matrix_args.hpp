#pragma once

// What the matrix path's stage kernels read and write, by value in the launch, and how a
// candidate's fields become their shape (gpu/matrix_layout.hpp has the operand layouts).
//
// Stage1, per workgroup: tile_m sorted rows (one block_m block: tile_m / 8 token groups of
// the matrix instruction) x tile_n columns of h (tile_n / 8 weight tiles of 16 rows: the
// gate and up rows of 8 columns); `waves` warps take the weight tiles in rounds, `k_waves`
// warps split each tile's K and add their sums in warp order through shared memory; tile_k
// is the K each warp loads ahead per step (tile_k / 64 pairs of scale blocks in flight);
// k_splits workgroups split K further when the batch's tiles would not fill the device, and
// the last of them to finish adds the splits in split order (deterministic) and runs the
// epilogue. Stage2: tile_m sorted rows x tile_n output columns (tile_n / 16 weight tiles),
// 8 warps: min(8, tiles) take the tiles, the rest split K.
//
// Large token tiles (tile_m >= kMatrixSharedTileM, gpu/matrix_shared_gemm.hpp): the warps
// share each K step's activations, staged in shared memory as BF16 with their scales applied
// (the quantizers write that copy too), and each warp converts its weight fragment once per
// step for all its token groups: BF16 instructions, no per-block scale products. There the
// K warps (stage1 k_waves, stage2's warps beyond its weight tiles) split the token groups of
// a weight tile instead of its K: no K reduction.

#include <cstdint>

#include "common/host_device.hpp"
#include "gpu/matrix_layout.hpp"
#include "gpu/portability.hpp"
#include "gpu/stage_args.hpp"

namespace fhmoe::kernels::gpu {

inline constexpr int kMatrixStage2Warps = 8;
inline constexpr int kMatrixMaxKSplits = 32;
inline constexpr int kMatrixSharedTileM = 64;

// Whether a stage with this token tile runs the shared-activation kernel.
FHMOE_HOST_DEVICE inline constexpr bool matrix_uses_shared_tile(int tile_m) {
    return tile_m >= kMatrixSharedTileM;
}

struct MatrixStage1Args {
    ShapeView shape;
    SortedView sorted;
    int tile_m = 0;
    int tile_n = 0;
    int waves = 1;
    int k_waves = 1;
    int k_splits = 1;
    bool fused_fp8_out = true;
    const std::uint8_t* a1 = nullptr;          // [M + 1 rows][H] mma layout; row M is zeros
    const std::uint16_t* a1_scales = nullptr;  // [M + 1][H/32] BF16 factors (matrix_layout.hpp)
    const std::uint8_t* w1 = nullptr;          // FP4, mma layout
    const std::uint8_t* w1_scale = nullptr;
    const std::uint8_t* shared_w1 = nullptr;  // FP8, mma layout
    const std::uint8_t* shared_w1_scale = nullptr;
    std::uint16_t* h_bf16 = nullptr;           // [sorted rows][I], unfused
    std::uint8_t* h_codes = nullptr;           // [sorted rows][I] mma layout, fused
    std::uint16_t* h_scales = nullptr;         // [sorted rows][I/32] BF16 factors, fused
    const std::uint16_t* a1_values = nullptr;  // large tiles: x as BF16 values, [M + 1][H]
    std::uint16_t* h_values = nullptr;         // fused, stage2 on large tiles: h as BF16 values
    float* partials = nullptr;                 // k_splits > 1: [tile][split][tile_m][tile_n][2]
    std::uint32_t* split_counters = nullptr;   // [tile], zero between runs
    // Host side: launch the small tiles' staged kernel build, whose K-warp groups share one
    // copy of each step's activations (gpu/matrix_staged_activations.hpp);
    // matrix_stage1_stages_activations decides.
    bool staged_activations = false;
    // The warpgroup instruction's activations (gpu/matrix_warpgroup_gemm.hpp): host side, the
    // bytes to reserve (0: the mma.sync loop; matrix_stage1_warpgroup_activation_bytes);
    // device side, where they start in the workgroup's shared memory (-1: none), set by the
    // launch.
    int warpgroup_activation_bytes = 0;
    int warpgroup_activations_offset = -1;
    // Host side, with warpgroup_activation_bytes > 0: the warpgroup-only build, without the
    // mma.sync loop beside it (matrix_tiles_are_one_token_group).
    bool warpgroup_only = false;
    // The shared expert's tiles to launch first (matrix_tile_of_workgroup; 0: index order).
    std::int64_t shared_tiles_first = 0;
};

struct MatrixStage2Args {
    ShapeView shape;
    SortedView sorted;
    int tile_m = 0;
    int tile_n = 0;
    bool atomic = true;
    bool persistent = false;
    std::uint32_t* tile_counter = nullptr;    // persistent: the next tile, zeroed per run
    const std::uint8_t* h_codes = nullptr;    // [sorted rows][I] mma layout
    const std::uint16_t* h_scales = nullptr;  // [sorted rows][I/32] BF16 factors
    const std::uint16_t* h_values = nullptr;  // large tiles: h as BF16 values [rows][I]
    const std::uint8_t* w2 = nullptr;         // FP4, mma layout
    const std::uint8_t* w2_scale = nullptr;
    const std::uint8_t* shared_w2 = nullptr;  // FP8, mma layout
    const std::uint8_t* shared_w2_scale = nullptr;
    std::uint16_t* out_bf16 = nullptr;  // [M, H], zeroed, atomic mode
    std::uint16_t* slot_out = nullptr;  // [M*topk, H], reduce mode
    // The warpgroup instruction's h rows, as MatrixStage1Args's (matrix_stage2_uses_warpgroup_mma).
    int warpgroup_activation_bytes = 0;
    int warpgroup_activations_offset = -1;
    bool warpgroup_only = false;  // as MatrixStage1Args's
    bool shallow_ring = false;    // matrix_stage2_takes_shallow_ring
    // As MatrixStage1Args's (not in the persistent kernel, which takes tiles in index order).
    std::int64_t shared_tiles_first = 0;
};

// The tile a workgroup takes: with `shared_tiles` > 0, the shared expert's tiles (the last
// `shared_tiles` of the `valid_tiles` the routing filled: its expert id is the highest) take
// the first workgroup indices, and the rest follow in order. Workgroups start in index order,
// and the shared expert's tiles carry twice the weight bytes of a routed expert's (FP8), from
// 9 tokens two token groups or more (the mma.sync loop): in index order they started last and
// were the tail of a launch over several waves of the device (H200, DSV4 at 16 tokens,
// docs/performance.md). A bijection on [0, valid_tiles); the indices past it are kept.
FHMOE_HOST_DEVICE inline std::int64_t matrix_tile_of_workgroup(std::int64_t index,
                                                               std::int64_t valid_tiles,
                                                               std::int64_t shared_tiles) {
    if (shared_tiles <= 0 || shared_tiles > valid_tiles || index >= valid_tiles) return index;
    return index < shared_tiles ? valid_tiles - shared_tiles + index : index - shared_tiles;
}

// Whether a stage launches the shared expert's tiles first: at decode sizes (below 4 routed rows
// per expert), where its workgroups take more than one wave of the device (in one wave the
// order does not matter, and the lookup costs a round trip to memory before the tile is known).
inline bool matrix_launches_shared_tiles_first(std::int64_t routed_rows_per_expert,
                                               std::int64_t workgroups, std::int64_t one_wave) {
    return routed_rows_per_expert < 4 && workgroups > one_wave;
}

// The K step of a stage (tile_k) as pairs of scale blocks loaded ahead: 1, 2 or 4.
inline int matrix_pairs_per_step(int tile_k) { return tile_k / 64; }

// The per-warp ring of shared memory the weight stream goes through (gpu/matrix_gemm.hpp):
// stages x pairs per step x 32 lanes x (two 16-byte chunks, FP8's size, + a 4-byte scale word).
// Workgroups of more than 8 warps double-buffer (2 stages) so that they fit a multiprocessor.
FHMOE_HOST_DEVICE inline constexpr int matrix_ring_stages(int pairs_per_step, int warps) {
    return warps > 8 ? 2 : pairs_per_step >= 4 ? 3 : 4;
}
FHMOE_HOST_DEVICE inline constexpr int matrix_ring_bytes(int stages, int pairs_per_step) {
    return stages * pairs_per_step * 32 * (2 * 16 + 4);
}
FHMOE_HOST_DEVICE inline constexpr int matrix_ring_bytes_per_warp(int pairs_per_step, int warps) {
    return matrix_ring_bytes(matrix_ring_stages(pairs_per_step, warps), pairs_per_step);
}
// Stage2's small tiles take a ring of 3 steps (the shallow ring) where that makes their launch
// one wave and the ring of matrix_ring_stages does not (matrix_stage2_takes_shallow_ring): with
// 4 steps two 8-warp workgroups fit a multiprocessor's shared memory, with 3 three (H200,
// 2026-12-04 14:58 UTC: 4 DSV4 tokens 54.9 -> 51.3 us, 2 tokens 35.1 -> 33.3, 8 tokens 95.7 ->
// 89.7; where 4 steps already run as one wave, 3 were 3-8 % slower).
inline constexpr int kMatrixStage2ShallowRingStages = 3;
FHMOE_HOST_DEVICE inline constexpr int matrix_stage2_ring_stages(int pairs_per_step, bool shallow) {
    return shallow ? kMatrixStage2ShallowRingStages
                   : matrix_ring_stages(pairs_per_step, kMatrixStage2Warps);
}

// The shared-activation kernel's rings: the same depth for every warp's weights and the
// workgroup's activations (one copy group per step): 3 steps, or 2 when a step of activations
// (tile_m rows x 128 bytes per pair) passes 16 KiB or the workgroup has more than 8 warps.
FHMOE_HOST_DEVICE inline constexpr int matrix_shared_stages(int pairs_per_step, int tile_m,
                                                            int warps) {
    return warps > 8 || pairs_per_step * tile_m > 128 ? 2 : 3;
}
FHMOE_HOST_DEVICE inline constexpr int matrix_shared_weight_ring_bytes(int pairs_per_step,
                                                                       int tile_m, int warps) {
    return matrix_shared_stages(pairs_per_step, tile_m, warps) * pairs_per_step * 32 * (2 * 16 + 4);
}
FHMOE_HOST_DEVICE inline constexpr int matrix_shared_activation_ring_bytes(int pairs_per_step,
                                                                           int tile_m, int warps) {
    return matrix_shared_stages(pairs_per_step, tile_m, warps) * pairs_per_step * tile_m * 128;
}

// The small tiles' staged activations (gpu/matrix_staged_activations.hpp): one ring per K-warp
// group, as deep as the weight rings: per stage and pair, each token group's fragments (32
// lanes x 16 bytes) and its 8 rows' scale words.
FHMOE_HOST_DEVICE inline constexpr int matrix_staged_activation_ring_bytes(int pairs_per_step,
                                                                           int tile_m, int stages) {
    return stages * pairs_per_step * (tile_m / 8) * (32 * 16 + 8 * 4);
}

// Whether a small-tile stage1 stages its activations: with at most two K warps (with four the
// per-step barrier of a group of warps costs more than it saves), at most 8 warps (the kernel
// build that has a staged twin) and from 4 routed rows per expert on (below, a tile holds a
// token group or two and the loop waits on latency, not on its activation loads). Measured on
// the H200 with DSV4 (docs/performance.md, 2026-12-03): stage1 2-10 % faster at 256-2048
// tokens with one or two K warps, 1-9 % slower with four, or at 1-64 tokens.
inline bool matrix_stage1_stages_activations(int tile_m, int waves, int k_waves,
                                             std::int64_t routed_rows_per_expert) {
    return !matrix_uses_shared_tile(tile_m) && k_waves <= 2 && waves * k_waves <= 8 &&
           routed_rows_per_expert >= 4;
}

// Whether a small-tile stage1 runs its K loop on the warpgroup instruction (wgmma, NVIDIA
// sm_90a; gpu/matrix_warpgroup_gemm.hpp) when a tile's real rows are one token group: its
// warps form whole warpgroups (four consecutive warps of one K warp: waves 4 or 8) and it does
// not stage its activations per step (a twin kernel with its own loop).
inline bool matrix_stage1_uses_warpgroup_mma(int tile_m, int waves, bool staged) {
    return !matrix_uses_shared_tile(tile_m) && waves % 4 == 0 && !staged;
}
// Whether every tile's real rows are one token group: no expert has more slots in the routing
// than a group has rows. With a top-k routing (an expert at most once per token) the most is
// the batch's token count, the shared expert's; the op's plan expects that, each launch checks
// its routing's own count (a routing may repeat an expert in a token). Then both stages launch
// their warpgroup-only builds where they take the warpgroup loop: without the mma.sync loops
// beside it they need fewer registers and instructions (stage2 72 a thread where it took 127;
// the op 3-4 % faster at 1-4 DSV4 tokens, 8 % at 8, H200 2026-12-04). A tile of two groups
// there traps.
inline bool matrix_tiles_are_one_token_group(std::int64_t most_slots_per_expert) {
    return most_slots_per_expert <= kMmaTokens;
}
// The shared memory its activations take, after the rest of the workgroup's: a ring per
// warpgroup (this is one's) as deep as the weight rings, each slot a step's pairs of one token
// group in the instruction's B layout (two 256-byte blocks per pair). Before, the workgroup staged
// its split's whole share of K (up to 56 KiB for DSV4 without a split), which cost resident
// workgroups: from 16 tokens on the loop was slower than mma.sync's, and was kept to shares of
// at most 32 KiB (H200, 2026-12-03 17:31, docs/performance.md).
FHMOE_HOST_DEVICE inline constexpr int matrix_stage1_warpgroup_ring_bytes(int pairs_per_step,
                                                                          int warps) {
    return matrix_ring_stages(pairs_per_step, warps) * pairs_per_step * 2 * 256;
}
// Where a workgroup's warpgroup activations start: after `shared_bytes`, 128-byte aligned.
inline int matrix_warpgroup_activations_offset(int shared_bytes) {
    return (shared_bytes + 127) / 128 * 128;
}

// Whether stage2 runs its weight stream on the warpgroup instruction when a tile's real rows
// are one token group: the small tiles' streaming loop (each of the 8 warps several weight
// tiles, one after another: 256 columns or more, steps that divide K, not persistent), whose
// two warpgroups share one copy of the group's h rows (all of K: 8 rows x 64 bytes per pair).
inline bool matrix_stage2_uses_warpgroup_mma(int tile_m, int tile_n, int tile_k, bool persistent,
                                             std::int64_t k_pairs) {
    const int step = matrix_pairs_per_step(tile_k);
    return !matrix_uses_shared_tile(tile_m) && !persistent && step <= 2 &&
           tile_n / 16 > kMatrixStage2Warps && k_pairs % step == 0;
}
inline int matrix_stage2_warpgroup_activation_bytes(std::int64_t k_pairs) {
    return static_cast<int>(k_pairs * 2 * 256);
}

// Whether stage2 starts under stage1 (a programmatic dependent launch, gpu/dependent_launch.hpp)
// or after it. Below 4 routed rows per expert its workgroups become resident and copy their
// first weights while stage1's last ones finish: 2.5 us of 32 at one DSV4 token, 1-4 % at 16
// and 64 tokens. From 4 on (DSV4: 256 tokens) the early launch cost 1.5-4 % of the whole op at
// 256-2048 tokens for the fastest candidates (H200, docs/performance.md 2026-12-03; why is not
// known: the kernels are the same either way).
inline bool matrix_stage2_starts_early(std::int64_t routed_rows_per_expert) {
    return routed_rows_per_expert < 4;
}

// Dynamic shared memory of a stage1 workgroup: the warps' rings and (staged) the K-warp groups'
// activation rings (the K warps' partial sums reuse that space once every warp has left its K
// loop), the tile's activation rows, (fused) the h tile the epilogue quantizes, two flags.
inline int matrix_stage1_shared_bytes(int tile_m, int tile_n, int tile_k, int waves, int k_waves,
                                      bool fused, bool staged = false) {
    const int warps = waves * k_waves;
    const int step = matrix_pairs_per_step(tile_k);
    if (matrix_uses_shared_tile(tile_m)) {
        // Weight rings, the activation ring, rows, the h tile, flags; no K reduction.
        return warps * matrix_shared_weight_ring_bytes(step, tile_m, warps) +
               matrix_shared_activation_ring_bytes(step, tile_m, warps) + tile_m * 4 +
               (fused ? tile_m * tile_n * 4 : 0) + 16;
    }
    const int rings = warps * matrix_ring_bytes_per_warp(step, warps) +
                      (staged ? k_waves * matrix_staged_activation_ring_bytes(
                                              step, tile_m, matrix_ring_stages(step, warps))
                              : 0);
    const int reduction = (k_waves - 1) * waves * 32 * (tile_m / 8) * 4 * 4;
    const int rows = tile_m * 4;
    const int staging = fused ? tile_m * tile_n * 4 : 0;
    return (rings > reduction ? rings : reduction) + rows + staging + 16;
}

// `shallow`: with the shallow ring (small tiles); without, the bytes bound both.
inline int matrix_stage2_shared_bytes(int tile_m, int tile_n, int tile_k, bool shallow = false) {
    const int tiles = tile_n / 16;
    const int warps_n = tiles < kMatrixStage2Warps ? tiles : kMatrixStage2Warps;
    const int k_groups = kMatrixStage2Warps / warps_n;
    const int step = matrix_pairs_per_step(tile_k);
    if (matrix_uses_shared_tile(tile_m)) {
        return kMatrixStage2Warps *
                   matrix_shared_weight_ring_bytes(step, tile_m, kMatrixStage2Warps) +
               matrix_shared_activation_ring_bytes(step, tile_m, kMatrixStage2Warps) + tile_m * 4 +
               16;
    }
    const int stages = matrix_stage2_ring_stages(step, shallow);
    return kMatrixStage2Warps * matrix_ring_bytes(stages, step) + tile_m * 4 +
           (k_groups - 1) * warps_n * 32 * (tile_m / 8) * 4 * 4 + 16;
}

// How many workgroups split stage1's K (see the header comment): as many as keep the batch's
// `tiles` workgroups within one wave of the device (every workgroup resident at once), while
// every warp keeps at least one full K step.
int matrix_stage1_k_splits(std::int64_t tiles, int workgroups_per_multiprocessor, int k_waves,
                           std::int64_t k_pairs, int pairs_per_step, int multiprocessors);
// With warpgroup_activation_bytes > 0: the warpgroup build with that much more shared memory.
// warpgroup_only: that build's (matrix_tiles_are_one_token_group).
int matrix_stage1_workgroups_per_multiprocessor(int tile_m, int tile_n, int tile_k, int waves,
                                                int k_waves, bool fused, bool staged,
                                                int warpgroup_activation_bytes = 0,
                                                bool warpgroup_only = false);

void launch_matrix_stage1(const MatrixStage1Args& args, std::int64_t tiles, int tile_k,
                          hipStream_t stream);
// `early`: a programmatic dependent launch under the kernel before it (stage1 or the
// quantization of h); false: a plain launch after it.
void launch_matrix_stage2(const MatrixStage2Args& args, std::int64_t tiles, int tile_k,
                          int workgroups, bool early, hipStream_t stream);
int matrix_stage2_workgroups_per_multiprocessor(int tile_m, int tile_n, int tile_k);
// Whether a launch of `tiles` workgroups takes the shallow ring: it runs as one wave with it and
// not without (small tiles of at most 2 pairs a step, not persistent), in the build it expects
// (`warpgroup_only`, with `warpgroup_activation_bytes` of shared memory for the activations).
bool matrix_stage2_takes_shallow_ring(int tile_m, int tile_n, int tile_k, bool persistent,
                                      bool warpgroup_only, int warpgroup_activation_bytes,
                                      std::int64_t tiles, int multiprocessors);

// Fused decode routing (one launch): workgroup 0 sorts the routing like launch_moe_sorting
// (each expert's slots in token order, padded to block_m), the others quantize x into the
// mma layout and, with `zero_out`, zero the output. For tokens * topk <= kFusedRoutingEntries
// and experts <= kFusedRoutingExperts.
inline constexpr int kFusedRoutingEntries = 1024;
inline constexpr int kFusedRoutingExperts = 1024;
struct FusedRoutingArgs {
    const std::uint16_t* x_bf16 = nullptr;
    const std::int32_t* topk_ids = nullptr;
    const float* topk_weights = nullptr;
    std::int64_t tokens = 0;
    std::int64_t hidden = 0;
    std::int64_t topk = 0;
    std::int64_t experts = 0;
    int block_m = 0;
    std::int32_t* sorted_ids = nullptr;
    float* sorted_weights = nullptr;
    std::int32_t* block_experts = nullptr;
    std::int32_t* valid_rows = nullptr;
    std::uint8_t* a1 = nullptr;
    std::uint16_t* a1_scales = nullptr;  // BF16 factors (gpu/matrix_layout.hpp)
    std::uint16_t* a1_values = nullptr;  // x as BF16 values too, when not null (large tiles)
    std::uint16_t* out_bf16 = nullptr;   // zeroed when not null
};
void launch_fused_routing(const FusedRoutingArgs& args, hipStream_t stream);

// bf16 rows [rows, columns] -> MXFP8 in the mma layout (codes) + [rows][columns/32] scales as
// BF16 factors, and with `values_bf16` not null the quantized values as BF16
// (gpu/matrix_layout.hpp).
void launch_mxfp8_quant_mma(const std::uint16_t* input, std::int64_t rows, std::int64_t columns,
                            std::uint8_t* codes, std::uint16_t* scales, std::uint16_t* values_bf16,
                            hipStream_t stream);

// The same codes and scales from the per-lane quantizer (gpu/lane_group_quant.hpp) that fused
// routing and stage1's epilogue use, row-major: for the bit-for-bit check in tests/gpu.
void launch_mxfp8_quant_by_lanes(const std::uint16_t* input, std::int64_t rows,
                                 std::int64_t columns, std::uint8_t* codes, std::uint8_t* scales,
                                 hipStream_t stream);

}  // namespace fhmoe::kernels::gpu
