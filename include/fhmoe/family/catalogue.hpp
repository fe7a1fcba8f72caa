#pragma once

// The candidate catalogue of a shape: every legal (block_m, stage1, stage2) triple on the
// axes below, in a deterministic order. The axes are the knobs that change work on both the
// cpu and the gpu backends; legality.hpp removes what cannot run, and the block_m rule
// removes blocks that would be mostly padding.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

inline constexpr std::array<int, 4> kBlockMAxis{16, 32, 64, 128};
inline constexpr std::array<int, 4> kStage1TileNAxis{32, 64, 128, 256};
inline constexpr std::array<int, 3> kStage1TileKAxis{64, 128, 256};
inline constexpr std::array<int, 3> kStage1WavesAxis{1, 2, 4};
inline constexpr std::array<int, 3> kStage1KWavesAxis{1, 2, 4};
// Stage1's K split across workgroups: 0 lets the backend derive it (the gpu fills one wave of
// the device with the batch's tiles); the others fix it. On the H200 the fastest split
// differs by candidate and token count (DSV4, 2026-12-03: at 8 tokens a fixed 4 ran 13-22 %
// faster than the derived split for the one-K-warp tiles, at 1, 2, 16 and 64 the derived one
// was within 1 % of each tile's best; docs/performance.md), so the tuner chooses. A split
// pays only while a batch's tiles leave the device idle: the fixed ones are offered for the
// small token tiles (block_m <= 32) up to 64 tokens (padded) (offers_fixed_k_splits).
inline constexpr std::array<int, 5> kStage1KSplitsAxis{0, 2, 4, 8, 16};
inline constexpr int kFixedKSplitsMaxBlockM = 32;
inline constexpr std::int64_t kFixedKSplitsMaxToken = 64;
// Stage2's 512- and 1024-column tiles: a warp streams four or eight weight tiles as one K loop,
// which pays off where stage2's K (the inter dim) is short: on the H200, DSV4 stage2 at
// 64-1024 tokens ran 25 % faster at 1024 columns than at 256 (docs/performance.md).
inline constexpr std::array<int, 5> kStage2TileNAxis{64, 128, 256, 512, 1024};
inline constexpr std::array<int, 3> kStage2TileKAxis{64, 128, 256};
// A stage2 tile below 16 rows would not fill one MFMA/MMA row block on the gpu.
inline constexpr int kMinStage2TileM = 16;
// The smallest block the rule below always offers: aiter's shipped rows use 32 even for one
// token, because a 32-row tile beats a 16-row tile on the gpu despite the padding.
inline constexpr int kAlwaysOfferedBlockM = 32;

// The block_m values offered for `shape`: kBlockMAxis members with
// block_m <= max(32, 2 * padded_token(token)). The biggest expert group is the shared
// expert's, which holds every token; a block more than twice that is padding in every block
// of every expert. With that, M <= 8 offers {16, 32}, M = 16 {16, 32}, M = 32 {16, 32, 64}
// and M >= 64 all four.
std::vector<int> offered_block_ms(const ShapeKey& shape);

// Whether stage1 configs of `block_m` on `shape` are offered with fixed K splits (the
// kStage1KSplitsAxis values), not only the derived one.
bool offers_fixed_k_splits(const ShapeKey& shape, int block_m);

// Every offered candidate, sorted by Candidate's operator<=> (block_m, then stage1 fields,
// then stage2 fields, numerically, in declaration order), without duplicates. Throws
// UnsupportedShape when the family cannot run the shape or no offered tile fits it.
std::vector<Candidate> build_catalogue(const ShapeKey& shape);

// Whether build_catalogue(shape) would contain `candidate`, without building it.
bool is_in_catalogue(const ShapeKey& shape, const Candidate& candidate);

struct CatalogueCount {
    int block_m = 0;
    std::size_t stage1_configs = 0;
    std::size_t stage2_configs = 0;
    std::size_t candidates = 0;  // stage1_configs * stage2_configs
};

// Per offered block_m, ascending. Sum of candidates == build_catalogue(shape).size().
// Throws UnsupportedShape as build_catalogue does, except that a shape no tile fits gets
// zero counts instead.
std::vector<CatalogueCount> count_catalogue(const ShapeKey& shape);

}  // namespace fhmoe::family
