#include "fhmoe/family/name_grammar.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "support/small_shape.hpp"

namespace fhmoe::family {
namespace {

std::string parse_error_of(const std::string& name, bool stage1) {
    try {
        if (stage1) {
            parse_stage1_name(name);
        } else {
            parse_stage2_name(name);
        }
    } catch (const ParseError& error) {
        return error.what();
    }
    return "(parsed)";
}

std::vector<std::string> tokens_of(const std::string& name) {
    std::vector<std::string> tokens;
    std::string token;
    for (char c : name) {
        if (c == '_') {
            tokens.push_back(token);
            token.clear();
        } else {
            token += c;
        }
    }
    tokens.push_back(token);
    return tokens;
}

std::string join_without(const std::vector<std::string>& tokens, std::size_t skipped) {
    std::string name;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (i == skipped) continue;
        name += (name.empty() ? "" : "_") + tokens[i];
    }
    return name;
}

std::vector<ShapeKey> round_trip_shapes() {
    return {dsv4_i384_shape(1), dsv4_i384_shape(2048), test_support::small_shape(100),
            test_support::small_shape(100, GateMode::separated)};
}

TEST(NameGrammar, FormatsTheCanonicalNames) {
    EXPECT_EQ(format_stage1_name(Stage1Config{32, 64, 256, 4, 2, GateMode::interleave, true}),
              "fhmoe1_afp8_wfp4_bf16_t32x64x256_w4_kw2_gui_fp8");
    EXPECT_EQ(format_stage1_name(Stage1Config{16, 128, 64, 1, 1, GateMode::separated, false}),
              "fhmoe1_afp8_wfp4_bf16_t16x128x64_gus");
    EXPECT_EQ(format_stage1_name(Stage1Config{16, 64, 128, 4, 2, GateMode::interleave, true, 8}),
              "fhmoe1_afp8_wfp4_bf16_t16x64x128_w4_kw2_ks8_gui_fp8");
    EXPECT_EQ(format_stage1_name(Stage1Config{16, 64, 128, 1, 1, GateMode::interleave, false, 1}),
              "fhmoe1_afp8_wfp4_bf16_t16x64x128_ks1_gui");
    EXPECT_EQ(format_stage2_name(Stage2Config{32, 256, 128, Stage2Mode::reduce, true}),
              "fhmoe2_afp8_wfp4_bf16_t32x256x128_reduce_persist");
    EXPECT_EQ(format_stage2_name(Stage2Config{16, 64, 64, Stage2Mode::atomic, false}),
              "fhmoe2_afp8_wfp4_bf16_t16x64x64_atomic");
}

TEST(NameGrammar, RoundTripsEveryCatalogueCandidateExactly) {
    for (const ShapeKey& shape : round_trip_shapes()) {
        for (const Candidate& candidate : build_catalogue(shape)) {
            const std::string name1 = format_stage1_name(candidate.stage1);
            const std::string name2 = format_stage2_name(candidate.stage2);
            ASSERT_EQ(parse_stage1_name(name1), candidate.stage1) << name1;
            ASSERT_EQ(parse_stage2_name(name2), candidate.stage2) << name2;
            ASSERT_EQ(format_stage1_name(parse_stage1_name(name1)), name1);
            ASSERT_EQ(format_stage2_name(parse_stage2_name(name2)), name2);
            ASSERT_EQ(from_candidate_id(to_candidate_id(candidate)), candidate);
        }
    }
}

TEST(NameGrammar, CandidateKeyIsTheTuningKey) {
    const Candidate candidate{64, Stage1Config{64, 128, 256, 2, 1, GateMode::interleave, false},
                              Stage2Config{32, 128, 64, Stage2Mode::atomic, true}};
    EXPECT_EQ(candidate_key(candidate),
              "bm64|fhmoe1_afp8_wfp4_bf16_t64x128x256_w2_gui|"
              "fhmoe2_afp8_wfp4_bf16_t32x128x64_atomic_persist");
    EXPECT_EQ(candidate_key(candidate), to_candidate_id(candidate).key());
    EXPECT_EQ(to_candidate_id(candidate).block_m, 64);
}

TEST(NameGrammar, CandidateIdWhoseStage1TileIsNotTheBlockIsRejected) {
    tuning::CandidateId id{32, "fhmoe1_afp8_wfp4_bf16_t64x128x256_gui",
                           "fhmoe2_afp8_wfp4_bf16_t32x128x128_atomic"};
    try {
        from_candidate_id(id);
        FAIL() << "accepted a stage1 tile_m that is not block_m";
    } catch (const ParseError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "candidate 'bm32|fhmoe1_afp8_wfp4_bf16_t64x128x256_gui|"
                  "fhmoe2_afp8_wfp4_bf16_t32x128x128_atomic': stage1 tile_m 64 is not block_m 32");
    }
}

struct MalformedCase {
    bool stage1;
    std::string name;
    std::string message;
};

TEST(NameGrammar, RejectsMalformedNamesNamingTheToken) {
    const std::string s1 = "fhmoe1_afp8_wfp4_bf16_";
    const std::string s2 = "fhmoe2_afp8_wfp4_bf16_";
    const std::vector<MalformedCase> cases = {
        {true, "", "token '': expected 'fhmoe1'"},
        {true, s2 + "t32x64x256_gui", "token 'fhmoe2': expected 'fhmoe1'"},
        {false, s1 + "t32x64x256_atomic", "token 'fhmoe1': expected 'fhmoe2'"},
        {true, "fhmoe1_afp4_wfp4_bf16_t32x64x256_gui",
         "token 'afp4': expected 'afp8' (the family is MXFP8 activations x MXFP4 weights -> "
         "bf16)"},
        {true, "fhmoe1_afp8_wfp4", "missing token 'bf16'"},
        {true, "fhmoe1_afp8_wfp4_bf16", "missing tile token t{TM}x{TN}x{TK}"},
        {true, s1 + "t32x64_gui", "token 't32x64': expected the tile token t{TM}x{TN}x{TK}"},
        {true, s1 + "32x64x256_gui", "token '32x64x256': expected the tile token t{TM}x{TN}x{TK}"},
        {true, s1 + "t32x64x256x8_gui",
         "token 't32x64x256x8': expected the tile token t{TM}x{TN}x{TK}"},
        {true, s1 + "t0x64x256_gui", "token 't0x64x256': tile_m is zero"},
        {true, s1 + "t32x0x256_gui", "token 't32x0x256': tile_n is zero"},
        {true, s1 + "t32xx256_gui", "token 't32xx256': tile_n '' is not a number"},
        {true, s1 + "t32x99999999999x256_gui",
         "token 't32x99999999999x256': tile_n 99999999999 exceeds 4096"},
        {true, s1 + "t32x8192x256_gui", "token 't32x8192x256': tile_n 8192 exceeds 4096"},
        {true, s1 + "t32x64x100_gui",
         "token 't32x64x100': tile_k 100 is not a multiple of the 32-wide scale block"},
        {true, s1 + "t32x64x16_gui", "token 't32x64x16': tile_k 16 is below 32"},
        {true, s1 + "t032x64x256_gui", "token 't032x64x256': tile_m '032' has a leading zero"},
        {true, s1 + "t32x64x256_bnt0_gui", "token 'bnt0': unknown token"},
        {true, s1 + "t32x64x256_kw_gui", "token 'kw': unknown token"},
        {true, s1 + "t32x64x256_w4_w4_gui", "token 'w4': duplicated w{W} token"},
        {true, s1 + "t32x64x256_w4_w2_gui", "token 'w2': duplicated w{W} token"},
        {true, s1 + "t32x64x256_gui_gus", "token 'gus': duplicated gui|gus token"},
        {true, s1 + "t32x64x256_w1_gui", "token 'w1': waves 1 is the default: omit the token"},
        {true, s1 + "t32x64x256_kw1_gui", "token 'kw1': k_waves 1 is the default: omit the token"},
        {true, s1 + "t32x64x256_w0_gui", "token 'w0': waves is zero"},
        {true, s1 + "t32x64x256_w65_gui", "token 'w65': waves 65 exceeds 64"},
        {true, s1 + "t32x64x256_w04_gui", "token 'w04': waves '04' has a leading zero"},
        {true, s1 + "t32x64x256_kw2_w4_gui",
         "token 'w4': out of canonical order (w{W}, kw{KW}, ks{KS}, gui|gus, fp8)"},
        {true, s1 + "t32x64x256_fp8_gui",
         "token 'gui': out of canonical order (w{W}, kw{KW}, ks{KS}, gui|gus, fp8)"},
        {true, s1 + "t32x64x256_ks0_gui", "token 'ks0': k_splits is zero"},
        {true, s1 + "t32x64x256_ks65_gui", "token 'ks65': k_splits 65 exceeds 64"},
        {true, s1 + "t32x64x256_ks4_kw2_gui",
         "token 'kw2': out of canonical order (w{W}, kw{KW}, ks{KS}, gui|gus, fp8)"},
        {true, s1 + "t32x64x256_ks4_ks2_gui", "token 'ks2': duplicated ks{KS} token"},
        {true, s1 + "t32x64x256_w4", "missing gate mode token 'gui' or 'gus'"},
        {true, s1 + "t32x64x256_gui__fp8", "empty token (doubled or trailing '_')"},
        {true, s1 + "t32x64x256_gui_", "empty token (doubled or trailing '_')"},
        {false, s2 + "t32x128x128", "missing mode token 'atomic' or 'reduce'"},
        {false, s2 + "t32x128x128_persist", "missing mode token 'atomic' or 'reduce'"},
        {false, s2 + "t32x128x128_atomic_reduce", "token 'reduce': duplicated atomic|reduce token"},
        {false, s2 + "t32x128x128_persist_atomic",
         "token 'atomic': out of canonical order (atomic|reduce, persist)"},
        {false, s2 + "t32x128x128_atomic_persist_persist",
         "token 'persist': duplicated persist token"},
        {false, s2 + "t32x128x128_atomic_bnt2", "token 'bnt2': unknown token"},
        {false, s2 + "t32x128x128_atomic_sbm64", "token 'sbm64': unknown token"},
        {false, s2 + "t32x128x128_gui_atomic", "token 'gui': unknown token"},
    };
    for (const MalformedCase& c : cases) {
        EXPECT_EQ(parse_error_of(c.name, c.stage1), "kernel name '" + c.name + "': " + c.message);
    }
}

// Every token changes what runs: dropping an optional token or altering any token parses
// to a different config (and a required token cannot be dropped at all).
TEST(NameGrammar, EveryTokenOfAStage1NameChangesTheConfig) {
    const std::string base = "fhmoe1_afp8_wfp4_bf16_t32x64x256_w4_kw2_ks4_gui_fp8";
    const Stage1Config config = parse_stage1_name(base);
    const std::vector<std::string> tokens = tokens_of(base);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string dropped = join_without(tokens, i);
        if (i < 5 || tokens[i] == "gui") {
            EXPECT_THROW(parse_stage1_name(dropped), ParseError) << dropped;
        } else {
            EXPECT_NE(parse_stage1_name(dropped), config) << dropped;
        }
    }
    for (const std::string& altered : std::vector<std::string>{
             "fhmoe1_afp8_wfp4_bf16_t64x64x256_w4_kw2_ks4_gui_fp8",
             "fhmoe1_afp8_wfp4_bf16_t32x128x256_w4_kw2_ks4_gui_fp8",
             "fhmoe1_afp8_wfp4_bf16_t32x64x128_w4_kw2_ks4_gui_fp8",
             "fhmoe1_afp8_wfp4_bf16_t32x64x256_w2_kw2_ks4_gui_fp8",
             "fhmoe1_afp8_wfp4_bf16_t32x64x256_w4_kw4_ks4_gui_fp8",
             "fhmoe1_afp8_wfp4_bf16_t32x64x256_w4_kw2_ks2_gui_fp8",
             "fhmoe1_afp8_wfp4_bf16_t32x64x256_w4_kw2_ks4_gus_fp8",
         }) {
        EXPECT_NE(parse_stage1_name(altered), config) << altered;
        EXPECT_EQ(format_stage1_name(parse_stage1_name(altered)), altered);
    }
}

TEST(NameGrammar, EveryTokenOfAStage2NameChangesTheConfig) {
    const std::string base = "fhmoe2_afp8_wfp4_bf16_t32x256x128_reduce_persist";
    const Stage2Config config = parse_stage2_name(base);
    const std::vector<std::string> tokens = tokens_of(base);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string dropped = join_without(tokens, i);
        if (tokens[i] == "persist") {
            EXPECT_NE(parse_stage2_name(dropped), config) << dropped;
        } else {
            EXPECT_THROW(parse_stage2_name(dropped), ParseError) << dropped;
        }
    }
    for (const std::string& altered : std::vector<std::string>{
             "fhmoe2_afp8_wfp4_bf16_t16x256x128_reduce_persist",
             "fhmoe2_afp8_wfp4_bf16_t32x128x128_reduce_persist",
             "fhmoe2_afp8_wfp4_bf16_t32x256x64_reduce_persist",
             "fhmoe2_afp8_wfp4_bf16_t32x256x128_atomic_persist",
         }) {
        EXPECT_NE(parse_stage2_name(altered), config) << altered;
        EXPECT_EQ(format_stage2_name(parse_stage2_name(altered)), altered);
    }
}

// The same property over whole catalogues: no suffix token of any offered name is a no-op.
TEST(NameGrammar, NoCatalogueNameHasANoOpToken) {
    for (const ShapeKey& shape : round_trip_shapes()) {
        for (const Candidate& candidate : build_catalogue(shape)) {
            const std::vector<std::string> tokens1 =
                tokens_of(format_stage1_name(candidate.stage1));
            for (std::size_t i = 5; i < tokens1.size(); ++i) {
                const std::string dropped = join_without(tokens1, i);
                if (tokens1[i] == "gui" || tokens1[i] == "gus") continue;  // required
                ASSERT_NE(parse_stage1_name(dropped), candidate.stage1) << dropped;
            }
            const std::vector<std::string> tokens2 =
                tokens_of(format_stage2_name(candidate.stage2));
            if (tokens2.back() == "persist") {
                ASSERT_NE(parse_stage2_name(join_without(tokens2, tokens2.size() - 1)),
                          candidate.stage2);
            }
        }
    }
}

TEST(NameGrammar, RefusesToFormatAConfigWithoutASpelling) {
    EXPECT_THROW(format_stage1_name(Stage1Config{32, 64, 100, 1, 1, GateMode::interleave, false}),
                 InternalError);
    EXPECT_THROW(format_stage1_name(Stage1Config{32, 64, 256, 0, 1, GateMode::interleave, false}),
                 InternalError);
    EXPECT_THROW(format_stage2_name(Stage2Config{0, 64, 128, Stage2Mode::atomic, false}),
                 InternalError);
}

}  // namespace
}  // namespace fhmoe::family
