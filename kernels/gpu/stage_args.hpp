#pragma once

// What the stage kernels read and write, by value in the launch (device TUs only).

#include <cstdint>

#include "gpu/portability.hpp"
#include "gpu/tile_geometry.hpp"

namespace fhmoe::kernels::gpu {

// The sorted routing moe_sorting leaves on the device.
struct SortedView {
    const std::int32_t* sorted_ids = nullptr;     // [capacity rows]
    const float* sorted_weights = nullptr;        // [capacity rows]
    const std::int32_t* block_experts = nullptr;  // [capacity rows / block_m]
    const std::int32_t* valid_rows = nullptr;     // [1]: padded rows in use
    int block_m = 0;
};

struct ShapeView {
    std::int64_t tokens = 0;
    std::int64_t hidden = 0;
    std::int64_t inter = 0;
    std::int64_t topk = 0;
    std::int64_t shared_expert = 0;
};

// The most threads a stage1 workgroup may have (its kernel's launch bound, which caps its
// registers so that a full workgroup always fits a multiprocessor): 16 warps.
inline constexpr int kStage1MaxThreads = 16 * kWarpSize;
// Stage2 has no waves field: its workgroup is a fixed 256 threads.
inline constexpr int kStage2Threads = 256;

struct Stage1Args {
    TileGeometry geometry;
    ShapeView shape;
    SortedView sorted;
    bool interleaved = true;  // gate/up rows alternate; otherwise the I gate rows come first
    bool fused_fp8_out = false;
    const std::uint8_t* a1_codes = nullptr;   // [M, H]
    const std::uint8_t* a1_scales = nullptr;  // [M, H/32]
    const std::uint8_t* w1_fp4 = nullptr;     // [E, 2I, H/2]
    const std::uint8_t* w1_scale = nullptr;   // [E, 2I, H/32]
    const std::uint8_t* shared_w1 = nullptr;  // [2I, H]
    const std::uint8_t* shared_w1_scale = nullptr;
    std::uint16_t* a2_bf16 = nullptr;   // [M*topk, I], unfused
    std::uint8_t* a2_codes = nullptr;   // [M*topk, I], fused
    std::uint8_t* a2_scales = nullptr;  // [M*topk, I/32], fused
    // K split across workgroups (stage1_k_splits): with k_splits > 1 each workgroup sums one
    // K range of its tile into partials [k_splits][partial_rows][I][2] (gate, up) and a
    // second kernel finishes the rows in split order; partial_rows bounds the sorted rows.
    int k_splits = 1;
    float* partials = nullptr;
    std::int64_t partial_rows = 0;
};

// How many workgroups share one stage1 tile's K: enough that the tiles a decode-size batch
// really uses (a few dozen: one block_m block per routed expert) fill the device about
// twice, as a whole number of K steps each; 1 when the tiles alone fill it.
int stage1_k_splits(const TileGeometry& g, std::int64_t active_tiles, std::int64_t k,
                    int multiprocessors);

struct Stage2Args {
    TileGeometry geometry;
    ShapeView shape;
    SortedView sorted;
    bool atomic = true;
    bool persistent = false;
    std::uint32_t* tile_counter = nullptr;    // persistent: the next tile to take, zeroed
    const std::uint8_t* a2_codes = nullptr;   // [M*topk, I]
    const std::uint8_t* a2_scales = nullptr;  // [M*topk, I/32]
    const std::uint8_t* w2_fp4 = nullptr;     // [E, H, I/2]
    const std::uint8_t* w2_scale = nullptr;   // [E, H, I/32]
    const std::uint8_t* shared_w2 = nullptr;  // [H, I]
    const std::uint8_t* shared_w2_scale = nullptr;
    std::uint16_t* out_bf16 = nullptr;  // [M, H], zeroed, atomic mode
    std::uint16_t* slot_out = nullptr;  // [M*topk, H], reduce mode
};

// Stage1: one workgroup per tile, `tiles` of them (the sort's capacity; tiles past the
// valid rows return at once).
void launch_stage1(const Stage1Args& args, std::int64_t tiles, hipStream_t stream);

// Stage2: one workgroup per tile, or with `persistent` a fixed grid of `workgroups` that
// take tiles from args.tile_counter until the valid ones are done.
void launch_stage2(const Stage2Args& args, std::int64_t tiles, int workgroups, hipStream_t stream);

// Workgroups of stage2 one multiprocessor holds at once (for the persistent grid).
int stage2_workgroups_per_multiprocessor(const TileGeometry& geometry);

}  // namespace fhmoe::kernels::gpu
