#include "fhmoe/family/default_config.hpp"

#include <array>
#include <cstdint>
#include <optional>

#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/legality.hpp"

namespace fhmoe::family {
namespace {

// Preference orders, from the matrix kernels' H200 measurements (docs/performance.md, 08:39
// UTC 2026-12-02: this choice ran within 0.8 % of the fastest candidate at every DSV4 token
// from 1 to 1024 and was the fastest at 2048): stage1 narrow tiles (many workgroups stream the
// weights side by side), 128-wide K steps for the small token tiles and 64-wide ones for the
// large tiles (whose activation ring grows with the step), four warps; stage2 128-column
// tiles; then the neighbours where a tile does not divide. On wide models with small token
// tiles, two K warps per stage1 weight tile and stage2 256-column tiles (a warp streams its
// two weight tiles as one K loop): the old choice there was 15-18 % off the fastest. From a
// few routed rows on (DSV4: 4 tokens), 1024-column stage2 tiles (eight weight tiles per warp):
// 6-11 % off the whole op at 16-1024 tokens (11:42 UTC 2026-12-02), and at 4 tokens since the
// warpgroup kernels 3-4 % faster than 256 columns (H200, 2026-12-03 17:53 and 23:10: the
// default's stage1 68.0 against 70.4 us); below, they leave most multiprocessors idle (one
// token: 52 us against 37). The large tiles' stage2: 512 columns
// (2048 tokens: 2720 us against 2843 at 128). From 4 routed rows per expert (DSV4: 256
// tokens) one K warp per weight tile, where stage1 stages each K step's activations for the
// workgroup (gpu backend), and the large tiles only from 64 rows (DSV4: 4096 tokens): at 2048
// the small tiles with one K warp ran 2538 us against the large tiles' 2748 (H200, 2026-12-03;
// at 4096 the large tiles 4538 against 4719). On wide models the small tiles take 32 columns
// and one K warp at every token count, and a fixed K split of 2 from 42 to 48 routed slots
// (DSV4: 7-8 tokens), where the derived split leaves the device short of work. Re-fit on
// the warpgroup-only builds (H200, 2026-12-04 10:14 UTC, splits derived / 2 / 4 of the 32- and
// 64-column tiles at 2-8 tokens, three runs each): the derived split is 1.8 % off the fastest
// at 4 tokens, 2.6 % at 5 and the fastest at 6, where the fixed 4 before it was 6.4 %, 1.1 % and
// 8.3 % off; at 8 tokens the split of 2 is the fastest (91.7 us against the fixed 4's 96.5 and
// the derived 100.3). Before: the fixed 4 from 24 slots (H200, 2026-12-03 13:31 UTC; the 64-
// column, two-K-warp choice before it was 3-17 % off at 1-64 tokens).
constexpr std::array<int, 4> kStage1TileNPreference{64, 32, 128, 256};
constexpr std::array<int, 4> kWideSmallTileStage1TileNPreference{32, 64, 128, 256};
constexpr std::array<int, 3> kStage1TileKPreference{128, 256, 64};
constexpr std::array<int, 3> kLargeTileStage1TileKPreference{64, 128, 256};
constexpr int kLargeTileBlockM = 64;                 // the gpu backend's shared-activation kernel
constexpr std::int64_t kLargeTileFromRows = 64;      // average routed rows per expert
constexpr std::int64_t kMeasuredMinModelDim = 4096;  // where these were measured (DSV4: 7168)
constexpr std::array<int, 3> kStage2TileNPreference{128, 256, 64};
constexpr std::array<int, 3> kWideSmallTileStage2TileNPreference{256, 128, 64};
constexpr std::array<int, 5> kWideBusyStage2TileNPreference{1024, 512, 256, 128, 64};
constexpr std::int64_t kWideBusyFromRoutedRows = 24;  // token x routed top-k
// Up to 48 routed slots (DSV4: 4-8 tokens) 512-column stage2 tiles, whose launches there take
// the shallow ring and run as one wave (matrix_stage2_takes_shallow_ring, gpu backend): at 4
// tokens 52.3 us against 1024 columns' 57.4 (H200, 2026-12-04 15:01 UTC record), at 8 a tie.
constexpr std::array<int, 5> kWideFewSlotsStage2TileNPreference{512, 1024, 256, 128, 64};
constexpr std::int64_t kWideFewSlotsToRoutedSlots = 48;
constexpr std::array<int, 4> kWideLargeTileStage2TileNPreference{512, 256, 128, 64};
constexpr int kWideSmallTileKSplits = 2;
constexpr std::int64_t kKSplitFromRoutedSlots = 42;  // token x routed top-k
constexpr std::int64_t kKSplitToRoutedSlots = 48;
constexpr std::array<int, 3> kStage2TileKPreference{128, 64, 256};
constexpr int kDefaultWaves = 4;
constexpr int kMaxDefaultBlockM = 128;

template <std::size_t N, std::size_t M>
constexpr bool all_on_axis(const std::array<int, N>& values, const std::array<int, M>& axis) {
    for (int value : values) {
        bool found = false;
        for (int on_axis : axis) found = found || on_axis == value;
        if (!found) return false;
    }
    return true;
}
// The default must be a catalogue member, so it only picks axis values.
static_assert(all_on_axis(kStage1TileNPreference, kStage1TileNAxis));
static_assert(all_on_axis(kStage1TileKPreference, kStage1TileKAxis));
static_assert(all_on_axis(kLargeTileStage1TileKPreference, kStage1TileKAxis));
static_assert(all_on_axis(kStage2TileNPreference, kStage2TileNAxis));
static_assert(all_on_axis(kWideSmallTileStage2TileNPreference, kStage2TileNAxis));
static_assert(all_on_axis(kWideBusyStage2TileNPreference, kStage2TileNAxis));
static_assert(all_on_axis(kWideFewSlotsStage2TileNPreference, kStage2TileNAxis));
static_assert(all_on_axis(kWideLargeTileStage2TileNPreference, kStage2TileNAxis));
static_assert(all_on_axis(kWideSmallTileStage1TileNPreference, kStage1TileNAxis));
static_assert(all_on_axis(std::array<int, 1>{kWideSmallTileKSplits}, kStage1KSplitsAxis));
static_assert(all_on_axis(kStage2TileKPreference, kStage2TileKAxis));
static_assert(all_on_axis(std::array<int, 1>{kDefaultWaves}, kStage1WavesAxis));

template <std::size_t N>
std::optional<int> first_dividing(const std::array<int, N>& preference, std::int64_t dim) {
    for (int tile : preference) {
        if (dim % tile == 0) return tile;
    }
    return std::nullopt;
}

// Rows a routed expert gets on average, at the shape's padded token count.
std::int64_t average_routed_rows(const ShapeKey& shape) {
    return padded_token(shape.token) * shape.routed_topk() / shape.routed_experts();
}

// Half the average routed expert group, rounded up to an offered block: the matrix kernels
// skip a block's padding-only token groups, so a smaller block wastes less than it costs (on
// the H200, 16-row blocks beat 32- and 64-row ones up to 2048 DSV4 tokens). From 64 routed
// rows per expert (4096 DSV4 tokens) at least 64 rows: the large-tile kernel; only for wide
// models like the one it was measured on (small test shapes keep the rule above, which the sim
// backend's model also prefers).
int default_block_m(const ShapeKey& shape) {
    const std::int64_t routed_rows = average_routed_rows(shape);
    std::int64_t wanted = (routed_rows + 1) / 2;
    if (routed_rows >= kLargeTileFromRows && shape.model_dim >= kMeasuredMinModelDim &&
        wanted < kLargeTileBlockM) {
        wanted = kLargeTileBlockM;
    }
    int chosen = kAlwaysOfferedBlockM;
    for (int block_m : offered_block_ms(shape)) {
        chosen = block_m;
        if (block_m >= wanted || block_m >= kMaxDefaultBlockM) break;
    }
    return chosen;
}

}  // namespace

Candidate default_candidate(const ShapeKey& shape) {
    if (auto reason = why_shape_unsupported(shape)) {
        throw UnsupportedShape("shape " + shape_key_string(shape) + ": " + *reason);
    }
    const int block_m = default_block_m(shape);
    const auto stage1_k = first_dividing(
        block_m >= kLargeTileBlockM ? kLargeTileStage1TileKPreference : kStage1TileKPreference,
        shape.model_dim);
    const bool wide = shape.model_dim >= kMeasuredMinModelDim;
    const bool wide_small_tiles = wide && block_m < kLargeTileBlockM;
    const auto stage1_n = first_dividing(
        wide_small_tiles ? kWideSmallTileStage1TileNPreference : kStage1TileNPreference,
        shape.inter_dim);
    const std::int64_t routed_slots = shape.token * shape.routed_topk();
    const bool busy = routed_slots >= kWideBusyFromRoutedRows;
    std::optional<int> stage2_n;
    if (!wide) {
        stage2_n = first_dividing(kStage2TileNPreference, shape.model_dim);
    } else if (!wide_small_tiles) {
        stage2_n = first_dividing(kWideLargeTileStage2TileNPreference, shape.model_dim);
    } else if (busy && routed_slots <= kWideFewSlotsToRoutedSlots) {
        stage2_n = first_dividing(kWideFewSlotsStage2TileNPreference, shape.model_dim);
    } else if (busy) {
        stage2_n = first_dividing(kWideBusyStage2TileNPreference, shape.model_dim);
    } else {
        stage2_n = first_dividing(kWideSmallTileStage2TileNPreference, shape.model_dim);
    }
    const auto stage2_k = first_dividing(kStage2TileKPreference, shape.inter_dim);
    if (!stage1_n || !stage1_k || !stage2_n || !stage2_k) {
        throw UnsupportedShape("shape " + shape_key_string(shape) +
                               ": no offered tile divides both model_dim and inter_dim");
    }
    Candidate candidate;
    candidate.block_m = block_m;
    // One K warp; the fixed split only where the catalogue offers it and K has the steps.
    const bool split = wide_small_tiles && routed_slots >= kKSplitFromRoutedSlots &&
                       routed_slots <= kKSplitToRoutedSlots &&
                       offers_fixed_k_splits(shape, block_m) &&
                       shape.model_dim / *stage1_k >= kWideSmallTileKSplits;
    candidate.stage1 = Stage1Config{candidate.block_m,
                                    *stage1_n,
                                    *stage1_k,
                                    kDefaultWaves,
                                    1,
                                    shape.gate_mode,
                                    true,
                                    split ? kWideSmallTileKSplits : 0};
    candidate.stage2 =
        Stage2Config{candidate.block_m, *stage2_n, *stage2_k, Stage2Mode::atomic, false};
    return candidate;
}

}  // namespace fhmoe::family
