#include "fhmoe/family/default_config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "csv_rows.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/legality.hpp"

namespace fhmoe::family {
namespace {

TEST(DefaultCandidate, IsInTheCatalogueOfEveryShippedShape) {
    const std::vector<ShapeKey> shapes = test::shipped_shapes();
    ASSERT_EQ(shapes.size(), 17U);
    for (const ShapeKey& shape : shapes) {
        const std::vector<Candidate> catalogue = build_catalogue(shape);
        EXPECT_TRUE(
            std::binary_search(catalogue.begin(), catalogue.end(), default_candidate(shape)))
            << shape_key_string(shape);
    }
}

TEST(DefaultCandidate, IsInTheCatalogueOfManyShapes) {
    int checked = 0;
    for (std::int64_t h : {256, 512, 1024, 2880, 4096, 7168, 8192}) {
        for (std::int64_t i : {64, 128, 192, 256, 320, 384, 512, 768, 1536, 2048}) {
            for (std::int64_t token : {1, 3, 7, 16, 33, 100, 1000, 5000, 40000, 200000}) {
                for (auto [expert, topk] : {std::pair{17, 5}, {385, 7}, {9, 3}, {257, 9}}) {
                    for (GateMode gate : {GateMode::interleave, GateMode::separated}) {
                        ShapeKey shape = dsv4_i384_shape(token, gate);
                        shape.model_dim = h;
                        shape.inter_dim = i;
                        shape.expert = expert;
                        shape.topk = topk;
                        shape.shared_expert_id = expert - 1;
                        const Candidate candidate = default_candidate(shape);
                        ASSERT_TRUE(is_in_catalogue(shape, candidate)) << shape_key_string(shape);
                        ++checked;
                    }
                }
            }
        }
    }
    EXPECT_EQ(checked, 7 * 10 * 10 * 4 * 2);
}

TEST(DefaultCandidate, FollowsTheDocumentedChoices) {
    const Candidate small = default_candidate(dsv4_i384_shape(1));
    EXPECT_EQ(small.block_m, 16);
    // Wide models, small token tiles: 32 columns, one K warp, stage2 256-column tiles.
    EXPECT_EQ(small.stage1, (Stage1Config{16, 32, 128, 4, 1, GateMode::interleave, true}));
    EXPECT_EQ(small.stage2, (Stage2Config{16, 256, 128, Stage2Mode::atomic, false}));
    // A fixed K split of 2 from 42 to 48 routed slots (DSV4: 7-8 tokens), else the derived.
    EXPECT_EQ(default_candidate(dsv4_i384_shape(2)).stage1.k_splits, 0);
    EXPECT_EQ(default_candidate(dsv4_i384_shape(4)).stage1.k_splits, 0);
    EXPECT_EQ(default_candidate(dsv4_i384_shape(6)).stage1.k_splits, 0);  // 36 slots
    EXPECT_EQ(default_candidate(dsv4_i384_shape(7)).stage1.k_splits, 2);
    EXPECT_EQ(default_candidate(dsv4_i384_shape(8)).stage1.k_splits, 2);
    EXPECT_EQ(default_candidate(dsv4_i384_shape(9)).stage1.k_splits, 0);  // 54 slots
    EXPECT_EQ(default_candidate(dsv4_i384_shape(16)).stage1.k_splits, 0);
    // From 24 routed rows (token x routed top-k; DSV4: 4 tokens) 512-column stage2 tiles, from
    // 49 (DSV4: 9 tokens) 1024-column ones.
    EXPECT_EQ(default_candidate(dsv4_i384_shape(3)).stage2.tile_n, 256);
    EXPECT_EQ(default_candidate(dsv4_i384_shape(4)).stage2.tile_n, 512);
    EXPECT_EQ(default_candidate(dsv4_i384_shape(8)).stage2.tile_n, 512);
    EXPECT_EQ(default_candidate(dsv4_i384_shape(9)).stage2.tile_n, 1024);
    EXPECT_EQ(default_candidate(dsv4_i384_shape(1024)).stage2.tile_n, 1024);
    ShapeKey narrow_model = dsv4_i384_shape(1);
    narrow_model.model_dim = 2048;  // below the measured widths: the general choice
    const Candidate general = default_candidate(narrow_model);
    EXPECT_EQ(general.stage1.tile_n, 64);
    EXPECT_EQ(general.stage1.k_waves, 1);
    EXPECT_EQ(general.stage1.k_splits, 0);
    EXPECT_EQ(general.stage2.tile_n, 128);
    ShapeKey narrow_eight = dsv4_i384_shape(8);
    narrow_eight.model_dim = 2048;
    EXPECT_EQ(default_candidate(narrow_eight).stage1.k_splits, 0);
    // Half the average routed group: 2048 x 6 / 384 = 32 rows -> 16; from 64 rows (4096
    // tokens) at least the large tiles' 64, with 64-wide K steps; 8192 tokens: 128 -> 64.
    EXPECT_EQ(default_candidate(dsv4_i384_shape(1024)).block_m, 16);
    const Candidate busy = default_candidate(dsv4_i384_shape(2048));
    EXPECT_EQ(busy.stage1, (Stage1Config{16, 32, 128, 4, 1, GateMode::interleave, true}));
    EXPECT_EQ(busy.stage2, (Stage2Config{16, 1024, 128, Stage2Mode::atomic, false}));
    const Candidate large = default_candidate(dsv4_i384_shape(4096));
    EXPECT_EQ(large.block_m, 64);
    EXPECT_EQ(large.stage1, (Stage1Config{64, 64, 64, 4, 1, GateMode::interleave, true}));
    EXPECT_EQ(large.stage2, (Stage2Config{64, 512, 128, Stage2Mode::atomic, false}));
    EXPECT_EQ(default_candidate(dsv4_i384_shape(8192)).block_m, 64);
    // 40000 -> padded 32768 -> 512 rows per routed expert: capped at 128.
    EXPECT_EQ(default_candidate(dsv4_i384_shape(40000)).block_m, 128);
    ShapeKey narrow = dsv4_i384_shape(1, GateMode::separated);
    narrow.inter_dim = 192;  // stage2 tile_k 128 does not divide it
    const Candidate fallback = default_candidate(narrow);
    EXPECT_EQ(fallback.stage1.tile_n, 32);
    EXPECT_EQ(fallback.stage2.tile_k, 64);
    EXPECT_EQ(fallback.stage1.gate_mode, GateMode::separated);
}

TEST(DefaultCandidate, ThrowsWhereNoCandidateExists) {
    ShapeKey shape = dsv4_i384_shape(1);
    shape.inter_dim = 96;
    EXPECT_THROW(default_candidate(shape), UnsupportedShape);
    shape = dsv4_i384_shape(1);
    shape.doweight_stage1 = 1;
    EXPECT_THROW(default_candidate(shape), UnsupportedShape);
}

}  // namespace
}  // namespace fhmoe::family
