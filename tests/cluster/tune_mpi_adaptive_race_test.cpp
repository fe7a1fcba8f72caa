// The adaptive race end to end (issue #14): the coordinator sends each race with its stop
// rule, the rank's supervisor runs batches of --rounds until the sequential test decides or
// --max_rounds is reached, and rank 0 decides at the look the race stopped at. On the sim
// backend (times depend only on the seed, the candidate and the round) with batches of 3
// rounds: a win of ~9% (t100's) cannot be shown at 2 degrees of freedom with the rate split
// over 4 looks and 4 finalists, so its race needs more batches, while the shapes won or lost
// by 15% and more decide after the first.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

constexpr int kRanks = 2;
constexpr int kRoundsPerBatch = 3;
constexpr int kMaxRounds = 12;  // looks after 3, 6, 9 and 12 rounds

TEST(TuneMpiAdaptiveRace, AnUndecidedRaceRunsMoreBatchesAndIsDecidedAtTheLookItStoppedAt) {
    const std::string dir = fresh_directory();
    std::filesystem::create_directories(dir);
    auto args = small_run_args(dir, "sim", 16, 1);
    const auto set = [&args](const std::string& flag, const std::string& value) {
        const auto it = std::find(args.begin(), args.end(), flag);
        ASSERT_NE(it, args.end()) << flag;
        *(it + 1) = value;
    };
    set("--rounds", std::to_string(kRoundsPerBatch));
    set("--finalists", "4");
    args.insert(args.end(), {"--max_rounds", std::to_string(kMaxRounds)});
    const TunerExit exit = run_tuner(dir, kRanks, args);
    ASSERT_EQ(exit.exit_code, 0) << exit.log;

    std::map<std::string, std::uint32_t> rounds_by_shape;
    for (const auto& record : evidence::read_journal(dir + "/journal.bin").records) {
        if (const auto* race = std::get_if<evidence::RaceOutcomeRecord>(&record)) {
            EXPECT_FALSE(race->stopped) << race->shape_key;
            rounds_by_shape[race->shape_key] = race->rounds_completed;
            for (const auto& contender : race->contenders) {
                EXPECT_EQ(contender.samples_us.size(), race->rounds_completed) << race->shape_key;
            }
        }
    }
    ASSERT_FALSE(rounds_by_shape.empty()) << "no shape raced";

    const JournalFacts facts = read_journal_facts(dir + "/journal.bin");
    const std::regex paired(R"(paired over (\d+) rounds \(look (\d+) of (\d+)\))");
    std::size_t extended = 0;
    for (const auto& [shape, decisions] : facts.final_decisions) {
        ASSERT_EQ(decisions.size(), 1U) << shape;
        const auto& decision = decisions.front();
        const auto rounds = rounds_by_shape.find(shape);
        if (rounds == rounds_by_shape.end()) continue;  // decided without a race
        std::smatch match;
        ASSERT_TRUE(std::regex_search(decision.reason, match, paired)) << decision.reason;
        const int ran = std::stoi(match[1].str());
        EXPECT_EQ(ran, static_cast<int>(rounds->second)) << shape;
        // A race ends only at a look: a whole number of batches, or the cap.
        EXPECT_TRUE(ran % kRoundsPerBatch == 0 || ran == kMaxRounds) << shape << ": " << ran;
        EXPECT_LE(ran, kMaxRounds) << shape;
        EXPECT_EQ(std::stoi(match[2].str()), (ran + kRoundsPerBatch - 1) / kRoundsPerBatch)
            << shape;
        EXPECT_EQ(std::stoi(match[3].str()), 4) << shape;
        std::printf("%s: %s after %d rounds, margin %.2f%%\n", shape.c_str(),
                    std::string(evidence::to_string(decision.kind)).c_str(), ran,
                    decision.margin_pct.value_or(-1.0));
        if (ran > kRoundsPerBatch) ++extended;
        // Far from the bar, the first batch decides.
        if (decision.margin_pct && std::abs(*decision.margin_pct) > 15.0) {
            EXPECT_EQ(ran, kRoundsPerBatch) << shape << ": " << decision.reason;
        }
    }
    EXPECT_GE(extended, 1U) << "no race needed a second batch: the test no longer exercises "
                               "adaptive rounds (did the sim's margins move?)";
}

}  // namespace
}  // namespace fhmoe::cluster::testing
