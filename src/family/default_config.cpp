#include "fhmoe/family/default_config.hpp"

#include <array>
#include <cstdint>
#include <optional>

#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/legality.hpp"

namespace fhmoe::family {
namespace {

// Preference orders: mid-size tiles first (enough work per tile to amortise the weight
// loads, enough tiles to spread), then the neighbours.
constexpr std::array<int, 4> kStage1TileNPreference{128, 64, 32, 256};
constexpr std::array<int, 3> kStage1TileKPreference{256, 128, 64};
constexpr std::array<int, 3> kStage2TileNPreference{128, 256, 64};
constexpr std::array<int, 3> kStage2TileKPreference{128, 64, 256};
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
static_assert(all_on_axis(kStage2TileNPreference, kStage2TileNAxis));
static_assert(all_on_axis(kStage2TileKPreference, kStage2TileKAxis));

template <std::size_t N>
std::optional<int> first_dividing(const std::array<int, N>& preference, std::int64_t dim) {
    for (int tile : preference) {
        if (dim % tile == 0) return tile;
    }
    return std::nullopt;
}

int default_block_m(const ShapeKey& shape) {
    const std::int64_t average_routed_rows =
        padded_token(shape.token) * shape.routed_topk() / shape.routed_experts();
    int chosen = kAlwaysOfferedBlockM;
    for (int block_m : offered_block_ms(shape)) {
        if (block_m < kAlwaysOfferedBlockM) continue;
        chosen = block_m;
        if (block_m >= average_routed_rows || block_m >= kMaxDefaultBlockM) break;
    }
    return chosen;
}

}  // namespace

Candidate default_candidate(const ShapeKey& shape) {
    if (auto reason = why_shape_unsupported(shape)) {
        throw UnsupportedShape("shape " + shape_key_string(shape) + ": " + *reason);
    }
    const auto stage1_n = first_dividing(kStage1TileNPreference, shape.inter_dim);
    const auto stage1_k = first_dividing(kStage1TileKPreference, shape.model_dim);
    const auto stage2_n = first_dividing(kStage2TileNPreference, shape.model_dim);
    const auto stage2_k = first_dividing(kStage2TileKPreference, shape.inter_dim);
    if (!stage1_n || !stage1_k || !stage2_n || !stage2_k) {
        throw UnsupportedShape("shape " + shape_key_string(shape) +
                               ": no offered tile divides both model_dim and inter_dim");
    }
    Candidate candidate;
    candidate.block_m = default_block_m(shape);
    candidate.stage1 =
        Stage1Config{candidate.block_m, *stage1_n, *stage1_k, 1, 1, shape.gate_mode, true};
    candidate.stage2 =
        Stage2Config{candidate.block_m, *stage2_n, *stage2_k, Stage2Mode::atomic, false};
    return candidate;
}

}  // namespace fhmoe::family
