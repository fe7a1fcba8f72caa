#include "fhmoe/family/catalogue.hpp"

#include <algorithm>

#include "fhmoe/error.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/family/name_grammar.hpp"

namespace fhmoe::family {
namespace {

template <typename Axis>
bool on_axis(const Axis& axis, int value) {
    return std::find(axis.begin(), axis.end(), value) != axis.end();
}

bool divides(int tile, std::int64_t dim) { return dim % tile == 0; }

// The K splits offered for (shape, block_m): the derived one alone outside the small tiles
// of decode-size batches (offers_fixed_k_splits).
std::vector<int> offered_k_splits(const ShapeKey& shape, int block_m) {
    if (!offers_fixed_k_splits(shape, block_m)) return {0};
    return {kStage1KSplitsAxis.begin(), kStage1KSplitsAxis.end()};
}

std::vector<Stage1Config> stage1_configs(const ShapeKey& shape, int block_m) {
    std::vector<Stage1Config> configs;
    const std::vector<int> k_splits_offered = offered_k_splits(shape, block_m);
    for (int tile_n : kStage1TileNAxis) {
        if (!divides(tile_n, shape.inter_dim)) continue;
        for (int tile_k : kStage1TileKAxis) {
            if (!divides(tile_k, shape.model_dim)) continue;
            for (int waves : kStage1WavesAxis) {
                for (int k_waves : kStage1KWavesAxis) {
                    if ((tile_k / kScaleBlockK) % k_waves != 0) continue;
                    for (int k_splits : k_splits_offered) {
                        if (static_cast<std::int64_t>(k_splits) * k_waves >
                            shape.model_dim / tile_k) {
                            continue;
                        }
                        for (bool fused : {false, true}) {
                            configs.push_back(Stage1Config{block_m, tile_n, tile_k, waves, k_waves,
                                                           shape.gate_mode, fused, k_splits});
                        }
                    }
                }
            }
        }
    }
    return configs;
}

std::vector<int> stage2_tile_ms(int block_m) {
    std::vector<int> tile_ms;
    if (block_m / 2 >= kMinStage2TileM && block_m % 2 == 0) tile_ms.push_back(block_m / 2);
    if (block_m >= kMinStage2TileM) tile_ms.push_back(block_m);
    return tile_ms;
}

std::vector<Stage2Config> stage2_configs(const ShapeKey& shape, int block_m) {
    std::vector<Stage2Config> configs;
    for (int tile_m : stage2_tile_ms(block_m)) {
        for (int tile_n : kStage2TileNAxis) {
            if (!divides(tile_n, shape.model_dim)) continue;
            for (int tile_k : kStage2TileKAxis) {
                if (!divides(tile_k, shape.inter_dim)) continue;
                for (Stage2Mode mode : {Stage2Mode::atomic, Stage2Mode::reduce}) {
                    for (bool persistent : {false, true}) {
                        configs.push_back(Stage2Config{tile_m, tile_n, tile_k, mode, persistent});
                    }
                }
            }
        }
    }
    return configs;
}

void require_supported(const ShapeKey& shape) {
    if (auto reason = why_shape_unsupported(shape)) {
        throw UnsupportedShape("shape " + shape_key_string(shape) + ": " + *reason);
    }
}

}  // namespace

std::vector<int> offered_block_ms(const ShapeKey& shape) {
    const std::int64_t limit = std::max<std::int64_t>(
        kAlwaysOfferedBlockM, 2 * padded_token(std::max<std::int64_t>(shape.token, 1)));
    std::vector<int> block_ms;
    for (int block_m : kBlockMAxis) {
        if (block_m <= limit) block_ms.push_back(block_m);
    }
    return block_ms;
}

bool offers_fixed_k_splits(const ShapeKey& shape, int block_m) {
    return block_m <= kFixedKSplitsMaxBlockM &&
           padded_token(std::max<std::int64_t>(shape.token, 1)) <= kFixedKSplitsMaxToken;
}

std::vector<CatalogueCount> count_catalogue(const ShapeKey& shape) {
    require_supported(shape);
    std::vector<CatalogueCount> counts;
    for (int block_m : offered_block_ms(shape)) {
        CatalogueCount count;
        count.block_m = block_m;
        count.stage1_configs = stage1_configs(shape, block_m).size();
        count.stage2_configs = stage2_configs(shape, block_m).size();
        count.candidates = count.stage1_configs * count.stage2_configs;
        counts.push_back(count);
    }
    return counts;
}

std::vector<Candidate> build_catalogue(const ShapeKey& shape) {
    require_supported(shape);
    std::vector<Candidate> catalogue;
    for (int block_m : offered_block_ms(shape)) {
        const std::vector<Stage2Config> stage2s = stage2_configs(shape, block_m);
        for (const Stage1Config& stage1 : stage1_configs(shape, block_m)) {
            for (const Stage2Config& stage2 : stage2s) {
                catalogue.push_back(Candidate{block_m, stage1, stage2});
            }
        }
    }
    if (catalogue.empty()) {
        throw UnsupportedShape("shape " + shape_key_string(shape) +
                               ": no offered tile divides both model_dim and inter_dim");
    }
    std::sort(catalogue.begin(), catalogue.end());
    FHMOE_CHECK(std::adjacent_find(catalogue.begin(), catalogue.end()) == catalogue.end(),
                "the catalogue axes produced a duplicate candidate");
    return catalogue;
}

bool is_in_catalogue(const ShapeKey& shape, const Candidate& c) {
    if (why_candidate_illegal(shape, c)) return false;
    if (!on_axis(offered_block_ms(shape), c.block_m)) return false;
    const Stage1Config& s1 = c.stage1;
    const Stage2Config& s2 = c.stage2;
    return on_axis(kStage1TileNAxis, s1.tile_n) && on_axis(kStage1TileKAxis, s1.tile_k) &&
           on_axis(kStage1WavesAxis, s1.waves) && on_axis(kStage1KWavesAxis, s1.k_waves) &&
           on_axis(offered_k_splits(shape, c.block_m), s1.k_splits) &&
           s2.tile_m >= kMinStage2TileM && on_axis(kStage2TileNAxis, s2.tile_n) &&
           on_axis(kStage2TileKAxis, s2.tile_k);
}

}  // namespace fhmoe::family
