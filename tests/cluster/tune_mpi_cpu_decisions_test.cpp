// fhmoe_tune_mpi on the real cpu backend at 1, 2 and 4 ranks, same seed and sample: the same
// decision (issue #6: "timings differ; decisions on clear wins do not").
//
// The win is clear by construction. The incumbent comes from a tuned CSV (-o, --all) and is
// legal but deliberately wasteful: the largest block_m the shape is offered (128 for token
// 100: every routed expert's ~25 tokens padded to 128 rows, about 4x the rows a block_m of 16
// computes), one wave, no K split, and a separate reduce pass. Real candidates beat it about
// 3x; which near-tied finalist wins is not asserted.
//
// One shape, so that its race runs alone: with several shapes, 4 ranks on 2 cores race one
// shape while the others still measure, and the race's noise floor was measured at 4-51%
// (5 runs of 3 shapes, median ~16%) against margins of 55-76%: too close for a test.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/name_grammar.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

constexpr std::uint64_t kSeed = 7;
constexpr int kSample = 8;
// A clear win: the published row is this much faster than the incumbent in the race (about
// 3x, a margin of ~65%, measured here), and far from the gate's threshold: the gate promotes
// when the margin reaches max(min_improvement_pct, noise floor) (tuning/gate.hpp), and the
// margin must be kThresholds times that, so that the same decision at every rank count is
// what the run should give, not luck near the boundary. (Before the race was analysed
// paired the premise was "5 noise floors" of an unpaired 2-sigma floor; a paired floor is
// t(0.995, 30) = 2.75 standard errors of the per-round log-ratios, and under load it is
// 3-16%, below.) Which finalist wins is not asserted, and at 4 ranks on 2 cores a weaker
// one sometimes does: margins of 48-70% measured here (2026-12-02), so "clear" is 30%.
constexpr double kClearMarginPct = 30.0;
constexpr double kThresholds = 2.0;
constexpr int kFinalists = 2;
// Short rounds, many of them. Under load (other jobs on the 2 cores) a contender's speed
// changes within a second; the paired analysis cancels what a round's contenders share, so
// the shorter a round the more of the load it cancels. With 9 rounds of 5 iterations the
// race's paired noise floors were 13-40% under load (load average 5-7 on the 2 cores); with
// 31 rounds of 2 iterations they were 2.9-15.5% in 18 runs at 1, 2 and 4 ranks (2026-12-02,
// load average 3-7 from other jobs: np1 5.3 5.3 13.5 9.9 10.8 8.6, np2 2.9 13.6 12.6 10.8
// 8.8 11.3, np4 3.8 5.1 13.8 15.5 10.7 11.7), against margins of 55-70%: at least 3.5
// thresholds (2 needed). The unpaired rule of before had floors of 0.4-2.5% on a quiet
// machine and once 15% under load, against a 65% margin and the 5 of its floors it needed.
constexpr int kIters = 2;
constexpr int kRounds = 31;

// Token 100 of the small family: its catalogue offers block_m 128.
std::string write_untuned(const std::string& dir) {
    const std::string source =
        read_file(std::string(FHMOE_SOURCE_DIR) + "/configs/untuned_fhmoe_small.csv");
    const std::string header = source.substr(0, source.find('\n') + 1);
    const std::string row_100 =
        "100,512,128,17,5,16,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
        "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,0,0,GateMode.INTERLEAVE";
    EXPECT_NE(source.find(row_100), std::string::npos) << "the small shapes changed";
    const std::string path = dir + "/untuned.csv";
    std::ofstream(path) << header << row_100 << '\n';
    return path;
}

// The wasteful incumbent of a shape: largest block_m, one wave, no K split, reduce.
family::Candidate slow_incumbent(const family::ShapeKey& shape) {
    const auto catalogue = family::build_catalogue(shape);
    const int largest = family::offered_block_ms(shape).back();
    for (const auto& candidate : catalogue) {
        if (candidate.block_m == largest && candidate.stage1.waves == 1 &&
            candidate.stage1.k_waves == 1 && candidate.stage2.mode == family::Stage2Mode::reduce &&
            !candidate.stage2.persistent) {
            return candidate;
        }
    }
    ADD_FAILURE() << "no wasteful candidate in the catalogue of "
                  << family::shape_key_string(shape);
    return catalogue.front();
}

// The tuned CSV of the incumbents, for the device the cpu backend tunes for.
std::string incumbent_rows(const std::string& untuned,
                           std::map<std::string, std::string>& incumbent_keys,
                           std::set<std::string>& incumbent_choices) {
    const family::DeviceKey cpu{
        "cpu", static_cast<int>(std::max(1U, std::thread::hardware_concurrency()))};
    std::string text = config::tuned_csv_header() + "\n";
    for (const auto& input : config::read_untuned_csv(untuned).shapes) {
        const family::Candidate slow = slow_incumbent(input.shape);
        incumbent_keys[family::shape_key_string(input.shape)] = family::candidate_key(slow);
        config::TunedRow row;
        row.device = cpu;
        row.shape = input.shape;
        row.shape.token = family::padded_token(input.shape.token);  // as serving looks it up
        row.block_m = slow.block_m;
        row.kernel_name1 = family::format_stage1_name(slow.stage1);
        row.kernel_name2 = family::format_stage2_name(slow.stage2);
        incumbent_choices.insert(std::to_string(row.block_m) + " " + row.kernel_name1 + " " +
                                 row.kernel_name2);
        text += config::format_tuned_row(row) + "\n";
    }
    return text;
}

void set_flag(std::vector<std::string>& args, const std::string& flag, const std::string& value) {
    const auto it = std::find(args.begin(), args.end(), flag);
    ASSERT_NE(it, args.end()) << flag;
    *(it + 1) = value;
}

struct Decided {
    std::map<std::string, std::string> kinds;  // shape -> decision kind
    double seconds = 0.0;
};

Decided run_at(const std::string& base, int ranks) {
    const std::string dir = base + "/np" + std::to_string(ranks);
    std::filesystem::create_directories(dir);
    const std::string untuned = write_untuned(dir);
    std::map<std::string, std::string> incumbent_keys;
    std::set<std::string> incumbent_choices;
    std::ofstream(dir + "/tuned.csv") << incumbent_rows(untuned, incumbent_keys, incumbent_choices);

    auto args = small_run_args(dir, "cpu", kSample, kSeed);
    args[1] = untuned;  // -i
    set_flag(args, "--iters", std::to_string(kIters));
    set_flag(args, "--rounds", std::to_string(kRounds));
    set_flag(args, "--finalists", std::to_string(kFinalists));
    args.push_back("--all");
    const TunerExit exit = run_tuner(dir, ranks, args);
    EXPECT_EQ(exit.exit_code, 0) << exit.log;
    if (exit.exit_code != 0) return {};

    const JournalFacts facts = read_journal_facts(dir + "/journal.bin");
    expect_each_candidate_once(facts);
    EXPECT_EQ(facts.header.shapes.size(), 1U);
    for (const auto& planned : facts.header.shapes) {
        const std::string shape = family::shape_key_string(planned.shape);
        EXPECT_TRUE(planned.incumbent_from_tuned_row) << shape;
        EXPECT_EQ(family::candidate_key(
                      planned.candidates.at(static_cast<std::size_t>(planned.incumbent_index))),
                  incumbent_keys[shape]);
    }
    Decided decided;
    decided.seconds = exit.seconds;
    for (const auto& [shape, decisions] : facts.final_decisions) {
        EXPECT_EQ(decisions.size(), 1U) << shape;
        const auto& d = decisions.front();
        decided.kinds[shape] = std::string(evidence::to_string(d.kind));
        std::printf("np%d %s: %s margin %.1f%% noise floor %.2f%% (%s)\n", ranks, shape.c_str(),
                    decided.kinds[shape].c_str(), d.margin_pct.value_or(-1.0), d.noise_floor_pct,
                    d.published ? d.published->key().c_str() : "-");
        if (d.kind != evidence::DecisionKind::promote) continue;
        EXPECT_TRUE(d.margin_pct.has_value() && d.published.has_value()) << shape;
        if (!d.margin_pct || !d.published) continue;
        EXPECT_GT(*d.margin_pct, kClearMarginPct) << shape << " won by a hair: not a clear win";
        const double threshold =
            std::max(tuning::default_policy().promotion.min_improvement_pct, d.noise_floor_pct);
        EXPECT_GT(*d.margin_pct, kThresholds * threshold) << shape;
        EXPECT_NE(d.published->key(), incumbent_keys[shape]);
    }
    // The published row of each shape is the promoted best challenger, not the incumbent.
    const auto rows = tuned_choices(dir + "/tuned.csv");
    EXPECT_EQ(rows.size(), 1U);
    for (const auto& [key, choice] : rows) {
        EXPECT_EQ(incumbent_choices.count(choice), 0U) << key << " still serves " << choice;
    }
    return decided;
}

TEST(TuneMpiCpuDecisions, SameDecisionAtOneTwoAndFourRanksOnAClearWin) {
    const std::string base = fresh_directory();
    const Decided one = run_at(base, 1);
    const Decided two = run_at(base, 2);
    const Decided four = run_at(base, 4);
    std::printf("runs: np1 %.1f s, np2 %.1f s, np4 %.1f s\n", one.seconds, two.seconds,
                four.seconds);
    ASSERT_EQ(one.kinds.size(), 1U);
    for (const auto& [shape, kind] : one.kinds) EXPECT_EQ(kind, "promote") << shape;
    EXPECT_EQ(one.kinds, two.kinds);
    EXPECT_EQ(one.kinds, four.kinds);
}

}  // namespace
}  // namespace fhmoe::cluster::testing
