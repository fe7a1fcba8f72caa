// fhmoe_tune_mpi's outputs on the real cpu backend: the tuned CSV at the serving lookup
// tokens, the summary that agrees with it, the evidence archive, --run_config and --compare.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

// The summary line of a shape: "<shape> <lookup> <decision> ... <tuned>".
std::smatch summary_line(const std::string& log, const std::string& shape) {
    std::smatch match;
    const std::regex line("\\n" + shape + " +([0-9]+) +([a-z_]+) .* (yes|no) +published");
    EXPECT_TRUE(std::regex_search(log, match, line)) << "no summary line for " << shape << "\n"
                                                     << log;
    return match;
}

TEST(TuneMpiOutputs, CpuRunPublishesAtLookupTokensAndSummaryAgrees) {
    const std::string dir = fresh_directory();
    auto args = small_run_args(dir, "cpu", 4, 11);
    args.insert(args.end(), {"--evidence", dir + "/evidence.h5"});
    const TunerExit exit = run_tuner(dir, 2, args);
    ASSERT_EQ(exit.exit_code, 0) << exit.log;

    const auto rows = tuned_choices(dir + "/tuned.csv");
    std::set<std::string> keys;
    for (const auto& [key, choice] : rows) keys.insert(key);
    // Raw tokens 3 and 100 are published at the tokens serving looks up: 4 and 128.
    const std::set<std::string> expected = {"1/GateMode.INTERLEAVE", "4/GateMode.INTERLEAVE",
                                            "16/GateMode.INTERLEAVE", "128/GateMode.INTERLEAVE",
                                            "16/GateMode.SEPARATED"};
    EXPECT_EQ(keys, expected);
    for (const auto& record : config::read_tuned_csv(dir + "/tuned.csv").records) {
        EXPECT_EQ(record.row.device.gfx, "cpu");
        ASSERT_TRUE(record.row.us.has_value());
        EXPECT_GT(*record.row.us, 0.0);
    }

    const auto t3 = summary_line(exit.log, "t3_h512_i128_e17_k5_gui");
    EXPECT_EQ(t3[1].str(), "4");
    EXPECT_EQ(t3[3].str(), "yes");
    const auto t100 = summary_line(exit.log, "t100_h512_i128_e17_k5_gui");
    EXPECT_EQ(t100[1].str(), "128");
    EXPECT_EQ(t100[3].str(), "yes");

    const JournalFacts facts = read_journal_facts(dir + "/journal.bin");
    expect_each_candidate_once(facts);

    // The archive holds one candidate row per planned candidate and a decision per shape.
    const evidence::RunEvidence archive = evidence::read_archive(dir + "/evidence.h5");
    std::size_t planned = 0;
    for (const auto& shape : facts.header.shapes) planned += shape.candidates.size();
    EXPECT_EQ(archive.shapes.size(), 5U);
    EXPECT_EQ(archive.candidates.size(), planned);
    EXPECT_EQ(archive.decisions.size(), 5U);
    EXPECT_EQ(archive.provenance.exit_status, 0);
    EXPECT_EQ(archive.provenance.ranks.size(), 2U);

    // A second run skips every shape: all are tuned on their lookup key (aiter's
    // pre_process, fixed for padded tokens), and its summary says so.
    std::filesystem::remove(dir + "/journal.bin");
    const TunerExit again = run_tuner(dir, 1, small_run_args(dir, "cpu", 4, 11));
    ASSERT_EQ(again.exit_code, 0) << again.log;
    EXPECT_NE(again.log.find("planned 0 shapes (5 already tuned"), std::string::npos) << again.log;
    const auto t3_again = summary_line(again.log, "t3_h512_i128_e17_k5_gui");
    EXPECT_EQ(t3_again[2].str(), "already");
    EXPECT_EQ(t3_again[3].str(), "yes");

    // --run_config replays every tuned row as serving looks it up, in a fresh worker.
    auto replay_args = small_run_args(dir, "cpu", 4, 11);
    replay_args.push_back("--run_config");
    const TunerExit replayed = run_tuner(dir, 1, replay_args);
    ASSERT_EQ(replayed.exit_code, 0) << replayed.log;
    for (const char* line : {"t1_h512_i128_e17_k5_gui +1 ok", "t3_h512_i128_e17_k5_gui +4 ok",
                             "t100_h512_i128_e17_k5_gui +128 ok"}) {
        EXPECT_TRUE(std::regex_search(replayed.log, std::regex(line))) << line << replayed.log;
    }
}

TEST(TuneMpiOutputs, CompareWithoutUpdateImprovedLeavesTheTunedCsvAlone) {
    const std::string dir = fresh_directory();
    auto args = small_run_args(dir, "sim", 12, 5);
    args.push_back("--compare");
    const TunerExit exit = run_tuner(dir, 2, args);
    ASSERT_EQ(exit.exit_code, 0) << exit.log;
    EXPECT_NE(exit.log.find("compare (production e2e replay"), std::string::npos) << exit.log;
    EXPECT_FALSE(std::filesystem::exists(dir + "/tuned.csv"));
}

TEST(TuneMpiOutputs, CompareUpdateImprovedWritesOnlyWhatImproved) {
    const std::string dir = fresh_directory();
    auto args = small_run_args(dir, "sim", 12, 5);
    args.insert(args.end(), {"--compare", "--update_improved"});
    const TunerExit exit = run_tuner(dir, 2, args);
    ASSERT_EQ(exit.exit_code, 0) << exit.log;
    // Promoted shapes improve on the default config by far more than the bar; the retained
    // default (t16 with separated gates, the one shape of this seed's sample where no
    // candidate beats it) replays the same kernel before and after, so it is skipped.
    const auto rows = tuned_choices(dir + "/tuned.csv");
    EXPECT_EQ(rows.count("16/GateMode.SEPARATED"), 0U) << exit.log;
    EXPECT_EQ(rows.count("1/GateMode.INTERLEAVE"), 1U) << exit.log;
    EXPECT_EQ(rows.count("128/GateMode.INTERLEAVE"), 1U) << exit.log;
    std::size_t threshold_met = 0;
    for (std::size_t at = exit.log.find("threshold_met"); at != std::string::npos;
         at = exit.log.find("threshold_met", at + 1)) {
        ++threshold_met;
    }
    EXPECT_EQ(rows.size(), threshold_met);
}

}  // namespace
}  // namespace fhmoe::cluster::testing

namespace fhmoe::cluster::testing {
namespace {

// aiter's shipped file (no us/err columns, aiter's kernel names) serves as the incumbents:
// the row's names are imported, the incumbent races, and rows the run did not decide stay
// byte for byte.
TEST(TuneMpiOutputs, AiterRowsAreImportedAsIncumbents) {
    const std::string dir = fresh_directory();
    const std::string aiter_row =
        "sim,1,16,512,128,17,5,16,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
        "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,0,0,GateMode.INTERLEAVE,32,0,"
        "flydsl_moe1_afp8_wfp4_bf16_t32x64x128_w2_gui_fp8,"
        "flydsl_moe2_afp8_wfp4_bf16_t32x128x128_atomic";
    const std::string other_device_row =
        "gfx950,256,16,512,128,17,5,16,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
        "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,0,0,GateMode.INTERLEAVE,32,0,"
        "flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_kw4_fp8,"
        "flydsl_moe2_afp8_wfp4_bf16_t32x256x128_atomic";
    {
        std::ofstream tuned(dir + "/tuned.csv");
        tuned << "gfx,cu_num,token,model_dim,inter_dim,expert,topk,shared_expert_id,act_type,"
                 "dtype,q_dtype_a,q_dtype_w,q_type,use_g1u1,doweight_stage1,hidden_pad,"
                 "intermediate_pad,gate_mode,block_m,ksplit,kernelName1,kernelName2\n"
              << aiter_row << "\n"
              << other_device_row << "\n";
    }
    auto args = small_run_args(dir, "sim", 12, 5);
    args.push_back("--all");
    const TunerExit exit = run_tuner(dir, 2, args);
    ASSERT_EQ(exit.exit_code, 0) << exit.log;

    const JournalFacts facts = read_journal_facts(dir + "/journal.bin");
    std::size_t imported = 0;
    for (const auto& planned : facts.header.shapes) {
        if (!planned.incumbent_from_tuned_row) continue;
        ++imported;
        EXPECT_EQ(planned.shape.token, 16);
        const auto& incumbent =
            planned.candidates.at(static_cast<std::size_t>(planned.incumbent_index));
        EXPECT_EQ(incumbent.stage1.tile_n, 64);
        EXPECT_EQ(incumbent.stage1.tile_k, 128);
        EXPECT_EQ(incumbent.stage1.waves, 2);
        EXPECT_TRUE(incumbent.stage1.fused_fp8_out);
    }
    EXPECT_EQ(imported, 1U);
    expect_each_candidate_once(facts);
    // Another device's row is kept exactly as it was.
    EXPECT_NE(read_file(dir + "/tuned.csv").find(other_device_row), std::string::npos);
}

}  // namespace
}  // namespace fhmoe::cluster::testing
