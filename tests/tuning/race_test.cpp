#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/race.hpp"

namespace fhmoe::tuning {
namespace {

CandidateId id(int block_m, const char* stage1) { return CandidateId{block_m, stage1, "s2"}; }

RaceContender contender(CandidateId candidate, std::vector<double> round_means,
                        bool is_incumbent = false, Status status = Status::ok) {
    return RaceContender{std::move(candidate), is_incumbent, status, std::move(round_means)};
}

const PromotionPolicy policy = default_policy().promotion;

TEST(RaceOrder, RotatesByOnePositionPerRound) {
    EXPECT_EQ(race_order(3, 0), (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_EQ(race_order(3, 1), (std::vector<std::size_t>{1, 2, 0}));
    EXPECT_EQ(race_order(3, 2), (std::vector<std::size_t>{2, 0, 1}));
    EXPECT_EQ(race_order(3, 3), race_order(3, 0));
    EXPECT_EQ(race_order(1, 7), (std::vector<std::size_t>{0}));
}

TEST(RaceOrder, EveryContenderRunsOnceInEveryPositionOverNRounds) {
    const std::size_t n = 5;
    std::vector<std::set<std::size_t>> positions_of(n);
    for (std::size_t round = 0; round < n; ++round) {
        const std::vector<std::size_t> order = race_order(n, round);
        EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), n);
        for (std::size_t position = 0; position < n; ++position) {
            positions_of[order[position]].insert(position);
        }
    }
    for (const auto& positions : positions_of) EXPECT_EQ(positions.size(), n);
}

TEST(RaceOrder, RejectsAnEmptyRace) { EXPECT_THROW(race_order(0, 0), InternalError); }

TEST(SummarizeRace, PerContenderStatisticsOverRoundsAndTheNoiseFloor) {
    const RaceSummary race =
        summarize_race({contender(id(32, "inc"), {100, 102, 98, 101, 99}, true),
                        contender(id(32, "fast"), {90, 91, 89, 90, 90}),
                        contender(id(64, "crashed"), {}, false, Status::crash),
                        contender(id(16, "mid"), {95, 95, 95, 95, 95})},
                       policy);
    ASSERT_EQ(race.contenders.size(), 4u);
    EXPECT_DOUBLE_EQ(race.contenders[0].over_rounds.mean_us, 100.0);
    // Round deviations 0, 2, -2, 1, -1: variance 10/4, stderr sqrt(2.5 / 5).
    EXPECT_DOUBLE_EQ(race.contenders[0].over_rounds.stderr_us, std::sqrt(0.5));
    EXPECT_DOUBLE_EQ(race.contenders[1].over_rounds.mean_us, 90.0);
    EXPECT_DOUBLE_EQ(race.contenders[1].over_rounds.stderr_us, std::sqrt(0.1));
    EXPECT_EQ(race.contenders[2].status, Status::crash);
    EXPECT_EQ(race.contenders[2].over_rounds.n_raw, 0u);
    EXPECT_EQ(race.incumbent, 0u);
    EXPECT_EQ(race.winner, 1u);
    EXPECT_EQ(race.challenger, 1u);
    ASSERT_TRUE(race.noise_pct);
    EXPECT_DOUBLE_EQ(*race.noise_pct, 2.0 * std::sqrt(0.6));  // of a 100 us incumbent

    const auto decision = gate_race(race, policy);
    ASSERT_TRUE(decision);
    EXPECT_EQ(decision->verdict, Verdict::promote);
    EXPECT_DOUBLE_EQ(decision->margin_pct.value(), 10.0);
    EXPECT_DOUBLE_EQ(decision->noise_floor_pct, 2.0 * std::sqrt(0.6));
}

TEST(SummarizeRace, NoisyRaceRetainsAFourPercentWin) {
    // Incumbent rounds 90..110 (stderr sqrt(250/4/5)), challenger a steady 96.
    const RaceSummary race =
        summarize_race({contender(id(32, "inc"), {90, 110, 95, 105, 100}, true),
                        contender(id(32, "new"), {96, 96, 96, 96, 96})},
                       policy);
    ASSERT_TRUE(race.noise_pct);
    EXPECT_DOUBLE_EQ(*race.noise_pct, 2.0 * std::sqrt(12.5));  // ~7.07% > 4%
    const auto decision = gate_race(race, policy);
    ASSERT_TRUE(decision);
    EXPECT_EQ(decision->verdict, Verdict::retain);
    EXPECT_DOUBLE_EQ(decision->margin_pct.value(), 4.0);
}

TEST(SummarizeRace, IncumbentThatWinsTheRaceIsRetained) {
    const RaceSummary race = summarize_race(
        {contender(id(16, "a"), {101, 102}), contender(id(32, "inc"), {99, 100}, true)}, policy);
    EXPECT_EQ(race.winner, 1u);
    EXPECT_EQ(race.challenger, 0u);
    const auto decision = gate_race(race, policy);
    ASSERT_TRUE(decision);
    EXPECT_EQ(decision->verdict, Verdict::retain);
    EXPECT_LT(decision->margin_pct.value(), 0.0);
}

TEST(SummarizeRace, IncumbentThatFailsInTheRaceIsReplaced) {
    const RaceSummary race = summarize_race(
        {contender(id(32, "inc"), {}, true, Status::timeout), contender(id(32, "new"), {120, 121})},
        policy);
    EXPECT_FALSE(race.noise_pct);
    EXPECT_EQ(race.winner, 1u);
    const auto decision = gate_race(race, policy);
    ASSERT_TRUE(decision);
    EXPECT_EQ(decision->verdict, Verdict::promote);
    EXPECT_NE(decision->reason.find("timeout"), std::string::npos) << decision->reason;
}

TEST(SummarizeRace, RaceWithoutIncumbentPromotesItsWinner) {
    const RaceSummary race = summarize_race(
        {contender(id(32, "b"), {50, 52}), contender(id(32, "a"), {40, 41})}, policy);
    EXPECT_FALSE(race.incumbent);
    EXPECT_FALSE(race.noise_pct);
    EXPECT_EQ(race.challenger, 1u);
    const auto decision = gate_race(race, policy);
    ASSERT_TRUE(decision);
    EXPECT_EQ(decision->verdict, Verdict::promote);
    EXPECT_FALSE(decision->margin_pct);
}

TEST(SummarizeRace, NoOkChallengerMeansNothingToGate) {
    const RaceSummary race =
        summarize_race({contender(id(32, "inc"), {10, 10}, true),
                        contender(id(32, "bad"), {1, 1}, false, Status::mismatch)},
                       policy);
    EXPECT_EQ(race.winner, 0u);
    EXPECT_FALSE(race.challenger);
    EXPECT_FALSE(gate_race(race, policy));
}

TEST(SummarizeRace, RejectsInconsistentRaces) {
    EXPECT_THROW(
        summarize_race({contender(id(32, "a"), {1, 2}, true), contender(id(32, "b"), {1, 2}, true)},
                       policy),
        InternalError);
    EXPECT_THROW(summarize_race({contender(id(32, "a"), {1})}, policy), InternalError);
    EXPECT_THROW(
        summarize_race({contender(id(32, "a"), {1, 2}), contender(id(32, "b"), {1, 2, 3})}, policy),
        InternalError);
    // A contender that faulted may have raced fewer rounds.
    EXPECT_NO_THROW(summarize_race(
        {contender(id(32, "a"), {1, 2, 3}), contender(id(32, "b"), {1}, false, Status::crash)},
        policy));
}

ContenderSummary summary(CandidateId candidate, double mean_us, bool is_incumbent = false,
                         Status status = Status::ok) {
    ContenderSummary result{std::move(candidate), is_incumbent, status, TimingStats{}, std::nullopt};
    result.over_rounds.mean_us = mean_us;
    return result;
}

TEST(ChooseRaceWinner, FastestOkContenderWins) {
    EXPECT_EQ(choose_race_winner({summary(id(32, "a"), 10.0),
                                  summary(id(32, "b"), 5.0, false, Status::mismatch),
                                  summary(id(32, "c"), 8.0), summary(id(32, "d"), 9.0)}),
              2u);
}

TEST(ChooseRaceWinner, TiesGoToTheIncumbentThenToTheSmallestKey) {
    EXPECT_EQ(choose_race_winner({summary(id(32, "a"), 8.0), summary(id(64, "inc"), 8.0, true)}),
              1u);
    EXPECT_EQ(choose_race_winner({summary(id(64, "inc"), 8.0, true), summary(id(32, "a"), 8.0)}),
              0u);
    EXPECT_EQ(choose_race_winner({summary(id(32, "z"), 8.0), summary(id(32, "b"), 8.0)}), 1u);
    EXPECT_EQ(choose_race_winner({summary(id(32, "b"), 8.0), summary(id(32, "z"), 8.0)}), 0u);
}

TEST(ChooseRaceWinner, NoOkContenderNoWinner) {
    EXPECT_FALSE(choose_race_winner({}));
    EXPECT_FALSE(choose_race_winner({summary(id(32, "a"), 1.0, true, Status::crash)}));
}

}  // namespace
}  // namespace fhmoe::tuning
