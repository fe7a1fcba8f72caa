#include "fhmoe/family/catalogue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/legality.hpp"
#include "support/small_shape.hpp"

namespace fhmoe::family {
namespace {

using test_support::small_shape;

// For DSV4 I384 (H 7168, I 384), per block_m:
//   stage1 = 3 tile_n (32, 64, 128; 256 does not divide 384)
//          x 8 (tile_k, k_waves) pairs (64: kw 1,2; 128: kw 1,2,4; 256: kw 1,2,4)
//          x 3 waves x 2 (fused or not) = 144 with the derived K split alone;
//   with the fixed K splits (block_m <= 32 up to 64 tokens), each (tile_k, k_waves) pair takes
//          the splits 0, 2, 4, 8, 16 with k_splits * k_waves <= 7168 / tile_k:
//          64 (112 steps): kw1 5, kw2 5; 128 (56): kw1 5, kw2 5, kw4 4 (not 16);
//          256 (28): kw1 5, kw2 4, kw4 3 (0, 2, 4) = 36 -> 3 x 36 x 3 x 2 = 648
//   stage2 per tile_m = 5 tile_n (64, 128, 256, 512, 1024 all divide 7168)
//          x 2 tile_k (64, 128; 256 does not divide 384) x 2 modes x 2 persist = 40
//   tile_m: bm16 -> {16} (8 is below the minimum); others -> {bm/2, bm}
// so bm16 offers 144 * 40 = 5760 and every other block 144 * 80 = 11520, or with fixed K
// splits 648 * 40 = 25920 and 648 * 80 = 51840.
// block_m rule: block_m <= max(32, 2 * padded token).
TEST(Catalogue, PinsTheDsv4I384CountsPerToken) {
    const std::map<int, std::size_t> small_tokens{{16, 25920}, {32, 51840}};
    const std::map<int, std::size_t> token_32{{16, 25920}, {32, 51840}, {64, 11520}};
    const std::map<int, std::size_t> token_64{{16, 25920}, {32, 51840}, {64, 11520}, {128, 11520}};
    const std::map<int, std::size_t> all_blocks{{16, 5760}, {32, 11520}, {64, 11520}, {128, 11520}};
    const std::map<std::int64_t, std::map<int, std::size_t>> expected{
        {1, small_tokens},  {2, small_tokens}, {4, small_tokens},  {8, small_tokens},
        {16, small_tokens}, {32, token_32},    {64, token_64},     {128, all_blocks},
        {256, all_blocks},  {512, all_blocks}, {1024, all_blocks}, {2048, all_blocks}};
    for (const ShapeKey& shape : dsv4_i384_shapes()) {
        std::map<int, std::size_t> per_block;
        for (const Candidate& candidate : build_catalogue(shape)) ++per_block[candidate.block_m];
        EXPECT_EQ(per_block, expected.at(shape.token)) << "token " << shape.token;
        std::map<int, std::size_t> counted;
        for (const CatalogueCount& count : count_catalogue(shape)) {
            EXPECT_EQ(count.candidates, count.stage1_configs * count.stage2_configs);
            EXPECT_EQ(count.stage1_configs,
                      offers_fixed_k_splits(shape, count.block_m) ? 648U : 144U);
            counted[count.block_m] = count.candidates;
        }
        EXPECT_EQ(counted, expected.at(shape.token)) << "token " << shape.token;
    }
}

TEST(Catalogue, FixedKSplitsOnlyForSmallTilesUpTo64Tokens) {
    EXPECT_TRUE(offers_fixed_k_splits(dsv4_i384_shape(1), 16));
    EXPECT_TRUE(offers_fixed_k_splits(dsv4_i384_shape(64), 32));
    EXPECT_FALSE(offers_fixed_k_splits(dsv4_i384_shape(64), 64));
    EXPECT_FALSE(offers_fixed_k_splits(dsv4_i384_shape(65), 16));  // pads to 128
    EXPECT_FALSE(offers_fixed_k_splits(dsv4_i384_shape(2048), 16));
}

bool test_divides(int tile, std::int64_t dim) { return dim % tile == 0; }

// The rule, written independently of the implementation, applied to the full product of the
// axes (and values just off them), must select exactly the catalogue.
std::vector<Candidate> brute_force_catalogue(const ShapeKey& s) {
    const std::int64_t block_limit = std::max<std::int64_t>(32, 2 * padded_token(s.token));
    std::vector<Candidate> result;
    for (int bm : {8, 16, 32, 64, 128, 256}) {
        if (bm == 8 || bm == 256 || bm > block_limit) continue;
        for (int tn1 : {16, 32, 64, 128, 256}) {
            for (int tk1 : {32, 64, 128, 256}) {
                for (int waves : {1, 2, 3, 4}) {
                    for (int kw : {1, 2, 3, 4}) {
                        for (GateMode gate : {GateMode::interleave, GateMode::separated}) {
                            for (bool fused : {false, true}) {
                                for (int ks : {0, 1, 2, 3, 4, 8, 16, 32}) {
                                    const bool fixed_splits =
                                        bm <= 32 && padded_token(s.token) <= 64;
                                    const bool split_ok =
                                        ks == 0 || (fixed_splits && ks != 1 && ks != 3 &&
                                                    ks != 32 && ks * kw <= s.model_dim / tk1);
                                    const bool stage1_ok =
                                        tn1 != 16 && tk1 != 32 && waves != 3 && kw != 3 &&
                                        test_divides(tn1, s.inter_dim) &&
                                        test_divides(tk1, s.model_dim) && (tk1 / 32) % kw == 0 &&
                                        gate == s.gate_mode && split_ok;
                                    if (!stage1_ok) continue;
                                    for (int tm2 : {8, 16, 32, 64, 128}) {
                                        if (tm2 < 16 || (tm2 != bm && tm2 * 2 != bm)) continue;
                                        for (int tn2 : {32, 64, 128, 256, 512, 1024, 2048}) {
                                            for (int tk2 : {32, 64, 128, 256}) {
                                                if (tn2 == 32 || tn2 == 2048 || tk2 == 32) continue;
                                                if (!test_divides(tn2, s.model_dim) ||
                                                    !test_divides(tk2, s.inter_dim)) {
                                                    continue;
                                                }
                                                for (Stage2Mode mode :
                                                     {Stage2Mode::atomic, Stage2Mode::reduce}) {
                                                    for (bool persistent : {false, true}) {
                                                        result.push_back(Candidate{
                                                            bm,
                                                            {bm, tn1, tk1, waves, kw, gate, fused,
                                                             ks},
                                                            {tm2, tn2, tk2, mode, persistent}});
                                                    }
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    std::sort(result.begin(), result.end());
    return result;
}

std::vector<ShapeKey> rule_shapes() {
    ShapeKey odd_dims = dsv4_i384_shape(40);
    odd_dims.model_dim = 96 * 32;  // 3072: every axis tile divides it
    odd_dims.inter_dim = 192;      // stage1 tile_n 32, 64; stage2 tile_k 64 only
    return {dsv4_i384_shape(1),
            dsv4_i384_shape(32),
            dsv4_i384_shape(2048),
            small_shape(3),
            small_shape(100, GateMode::separated),
            odd_dims};
}

TEST(Catalogue, IsExactlyTheRuleOverTheAxes) {
    for (const ShapeKey& shape : rule_shapes()) {
        EXPECT_EQ(build_catalogue(shape), brute_force_catalogue(shape)) << shape_key_string(shape);
    }
}

TEST(Catalogue, OffersNoTileThatFailsToDivideAndNothingIllegal) {
    for (const ShapeKey& shape : rule_shapes()) {
        for (const Candidate& c : build_catalogue(shape)) {
            ASSERT_EQ(shape.inter_dim % c.stage1.tile_n, 0) << candidate_key(c);
            ASSERT_EQ(shape.model_dim % c.stage1.tile_k, 0) << candidate_key(c);
            ASSERT_EQ(shape.model_dim % c.stage2.tile_n, 0) << candidate_key(c);
            ASSERT_EQ(shape.inter_dim % c.stage2.tile_k, 0) << candidate_key(c);
            ASSERT_EQ(c.stage1.tile_m, c.block_m);
            ASSERT_GE(c.stage2.tile_m, kMinStage2TileM);
            ASSERT_EQ(c.stage1.gate_mode, shape.gate_mode);
            ASSERT_FALSE(why_candidate_illegal(shape, c).has_value()) << candidate_key(c);
            ASSERT_TRUE(is_in_catalogue(shape, c)) << candidate_key(c);
        }
    }
}

TEST(Catalogue, IsSortedWithoutDuplicatesAndDeterministic) {
    for (const ShapeKey& shape : rule_shapes()) {
        const std::vector<Candidate> catalogue = build_catalogue(shape);
        EXPECT_TRUE(std::is_sorted(catalogue.begin(), catalogue.end()));
        EXPECT_EQ(std::adjacent_find(catalogue.begin(), catalogue.end()), catalogue.end());
        std::set<std::string> keys;
        for (const Candidate& c : catalogue) keys.insert(candidate_key(c));
        EXPECT_EQ(keys.size(), catalogue.size()) << "two candidates share a key";
        EXPECT_EQ(build_catalogue(shape), catalogue);
    }
}

TEST(Catalogue, BlockMRuleFollowsThePaddedToken) {
    EXPECT_EQ(offered_block_ms(dsv4_i384_shape(1)), (std::vector<int>{16, 32}));
    EXPECT_EQ(offered_block_ms(dsv4_i384_shape(16)), (std::vector<int>{16, 32}));
    EXPECT_EQ(offered_block_ms(dsv4_i384_shape(17)), (std::vector<int>{16, 32, 64}));
    EXPECT_EQ(offered_block_ms(dsv4_i384_shape(32)), (std::vector<int>{16, 32, 64}));
    EXPECT_EQ(offered_block_ms(dsv4_i384_shape(33)), (std::vector<int>{16, 32, 64, 128}));
    EXPECT_EQ(offered_block_ms(dsv4_i384_shape(100000)), (std::vector<int>{16, 32, 64, 128}));
}

TEST(Catalogue, MembershipRejectsOffAxisAndIllegalCandidates) {
    const ShapeKey shape = dsv4_i384_shape(64);
    const Candidate member = build_catalogue(shape).front();
    ASSERT_TRUE(is_in_catalogue(shape, member));
    Candidate three_waves = member;
    three_waves.stage1.waves = 3;  // legal, but not an offered axis value
    EXPECT_FALSE(why_candidate_illegal(shape, three_waves).has_value());
    EXPECT_FALSE(is_in_catalogue(shape, three_waves));
    Candidate tile_256 = member;
    tile_256.stage1.tile_n = 256;  // on the axis, but does not divide 384
    EXPECT_FALSE(is_in_catalogue(shape, tile_256));
    Candidate big_block = member;
    big_block.block_m = big_block.stage1.tile_m = big_block.stage2.tile_m = 128;
    EXPECT_TRUE(is_in_catalogue(shape, big_block));
    EXPECT_FALSE(is_in_catalogue(dsv4_i384_shape(4), big_block));
}

TEST(Catalogue, UnsupportedShapesThrow) {
    ShapeKey fp4_activations = dsv4_i384_shape(8);
    fp4_activations.q_dtype_a = QDType::fp4_e2m1fn_x2;
    EXPECT_THROW(build_catalogue(fp4_activations), UnsupportedShape);
    EXPECT_THROW(count_catalogue(fp4_activations), UnsupportedShape);
    ShapeKey no_tile_fits = dsv4_i384_shape(8);
    no_tile_fits.inter_dim = 96;  // multiple of 32, but no stage2 tile_k in {64,128,256}
    EXPECT_THROW(build_catalogue(no_tile_fits), UnsupportedShape);
}

TEST(Legality, ExplainsEachRule) {
    const ShapeKey shape = dsv4_i384_shape(64);
    const Candidate good{32,
                         {32, 64, 256, 1, 1, GateMode::interleave, false},
                         {16, 128, 128, Stage2Mode::atomic, false}};
    ASSERT_FALSE(why_candidate_illegal(shape, good).has_value());
    const auto reason = [&](auto change) {
        Candidate c = good;
        change(c);
        return why_candidate_illegal(shape, c).value_or("(legal)");
    };
    EXPECT_EQ(reason([](Candidate& c) { c.stage1.tile_m = 64; }),
              "stage1 tile_m 64 is not block_m 32");
    EXPECT_EQ(reason([](Candidate& c) { c.stage1.tile_n = 256; }),
              "stage1 tile_n 256 does not divide inter_dim 384");
    EXPECT_EQ(reason([](Candidate& c) { c.stage1.tile_k = 96; }),
              "stage1 tile_k 96 does not divide model_dim 7168");
    EXPECT_EQ(reason([](Candidate& c) { c.stage1.k_waves = 3; }),
              "stage1 k_waves 3 does not split the 8 scale blocks of tile_k 256");
    EXPECT_EQ(reason([](Candidate& c) { c.stage1.k_splits = 28; }), "(legal)");
    EXPECT_EQ(reason([](Candidate& c) {
                  c.stage1.k_splits = 15;
                  c.stage1.k_waves = 2;
              }),
              "stage1 k_splits 15 x k_waves 2 exceeds the 28 K steps of tile_k 256 in "
              "model_dim 7168");
    EXPECT_EQ(reason([](Candidate& c) { c.stage1.gate_mode = GateMode::separated; }),
              "stage1 gate mode GateMode.SEPARATED is not the shape's GateMode.INTERLEAVE");
    EXPECT_EQ(reason([](Candidate& c) { c.stage2.tile_m = 8; }),
              "stage2 tile_m 8 is neither block_m 32 nor half of it");
    EXPECT_EQ(reason([](Candidate& c) { c.stage2.tile_n = 96; }),
              "stage2 tile_n 96 does not divide model_dim 7168");
    EXPECT_EQ(reason([](Candidate& c) { c.stage2.tile_k = 256; }),
              "stage2 tile_k 256 does not divide inter_dim 384");
    EXPECT_EQ(reason([](Candidate& c) { c.stage1.waves = 0; }),
              "stage1 config outside the name grammar's bounds");
    EXPECT_EQ(reason([](Candidate& c) { c.stage2.tile_k = 48; }),
              "stage2 config outside the name grammar's bounds");
    ShapeKey bad_shared = shape;
    bad_shared.shared_expert_id = 0;
    EXPECT_EQ(why_shape_unsupported(bad_shared).value_or("(supported)"),
              "shared_expert_id 0 is not expert - 1");
}

}  // namespace
}  // namespace fhmoe::family
