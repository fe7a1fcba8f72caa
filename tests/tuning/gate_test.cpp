#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/gate.hpp"

namespace fhmoe::tuning {
namespace {

Measured ok(double mean_us, double stderr_us = 0.0) {
    return Measured{Status::ok, mean_us, stderr_us};
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

const PromotionPolicy policy = default_policy().promotion;

TEST(Gate, ExactlyThreePercentPromotes) {
    const GateDecision decision = gate_against_incumbent(ok(100.0), ok(97.0), policy, 0.0);
    EXPECT_EQ(decision.verdict, Verdict::promote);
    ASSERT_TRUE(decision.margin_pct);
    EXPECT_DOUBLE_EQ(*decision.margin_pct, 3.0);
    EXPECT_DOUBLE_EQ(decision.bar_pct, 3.0);
    EXPECT_DOUBLE_EQ(decision.noise_floor_pct, 0.0);
    EXPECT_TRUE(contains(decision.reason, "meets")) << decision.reason;
}

TEST(Gate, ExactlyThreePercentPromotesDespiteBinaryRounding) {
    // 97.5 -> 94.575 is 3% in decimal but computes as 2.9999999999999947%.
    const double margin = improvement_pct(97.5, 94.575);
    ASSERT_LT(margin, 3.0);
    EXPECT_TRUE(meets_bar(margin, 3.0));
    const GateDecision decision = gate_against_incumbent(ok(97.5), ok(94.575), policy, 0.0);
    EXPECT_EQ(decision.verdict, Verdict::promote);
}

TEST(Gate, JustBelowThreePercentRetains) {
    const GateDecision decision = gate_against_incumbent(ok(100.0), ok(97.01), policy, 0.0);
    EXPECT_EQ(decision.verdict, Verdict::retain);
    ASSERT_TRUE(decision.margin_pct);
    EXPECT_NEAR(*decision.margin_pct, 2.99, 1e-9);
    EXPECT_TRUE(contains(decision.reason, "below")) << decision.reason;
}

TEST(Gate, ToleranceIsFarBelowAnyRealDifference) {
    EXPECT_FALSE(meets_bar(3.0 - 1e-7, 3.0));
    EXPECT_TRUE(meets_bar(3.0 - 1e-10, 3.0));
    EXPECT_TRUE(meets_bar(0.0, 0.0));
    EXPECT_FALSE(meets_bar(-1e-12, 0.0));
}

TEST(Gate, RegressionRetainsWithNegativeMargin) {
    const GateDecision decision = gate_against_incumbent(ok(100.0), ok(110.0), policy, 0.0);
    EXPECT_EQ(decision.verdict, Verdict::retain);
    EXPECT_DOUBLE_EQ(decision.margin_pct.value(), -10.0);
}

TEST(Gate, NoiseFloorAboveTheMinimumRaisesTheBar) {
    // 4% would pass the 3% minimum, but the race was noisy: 5% floor.
    const GateDecision decision = gate_against_incumbent(ok(100.0), ok(96.0), policy, 5.0);
    EXPECT_EQ(decision.verdict, Verdict::retain);
    EXPECT_DOUBLE_EQ(decision.bar_pct, 5.0);
    EXPECT_DOUBLE_EQ(decision.noise_floor_pct, 5.0);
    EXPECT_TRUE(contains(decision.reason, "noise floor 5.000%")) << decision.reason;
}

TEST(Gate, NoiseFloorBelowTheMinimumLeavesTheMinimum) {
    const GateDecision decision = gate_against_incumbent(ok(100.0), ok(96.0), policy, 1.0);
    EXPECT_EQ(decision.verdict, Verdict::promote);
    EXPECT_DOUBLE_EQ(decision.bar_pct, 3.0);
}

TEST(Gate, NoIncumbentPromotesWithoutMargin) {
    const GateDecision decision = gate_against_incumbent(std::nullopt, ok(50.0), policy, 0.0);
    EXPECT_EQ(decision.verdict, Verdict::promote);
    EXPECT_FALSE(decision.margin_pct);
    EXPECT_TRUE(contains(decision.reason, "no incumbent")) << decision.reason;
}

TEST(Gate, FailedIncumbentPromotesNamingItsStatus) {
    for (Status status : all_statuses) {
        if (status == Status::ok) continue;
        const GateDecision decision =
            gate_against_incumbent(Measured{status, 0.0, 0.0}, ok(500.0), policy, 0.0);
        EXPECT_EQ(decision.verdict, Verdict::promote) << to_string(status);
        EXPECT_FALSE(decision.margin_pct);
        EXPECT_TRUE(contains(decision.reason, "'" + std::string(to_string(status)) + "'"))
            << decision.reason;
    }
}

TEST(Gate, ChallengerThatIsNotOkNeverPromotes) {
    for (Status status : all_statuses) {
        if (status == Status::ok) continue;
        const Measured challenger{status, 1.0, 0.0};  // "faster" by any measure
        for (const std::optional<Measured>& incumbent :
             {std::optional<Measured>{}, std::optional<Measured>{ok(100.0)},
              std::optional<Measured>{Measured{Status::crash, 0.0, 0.0}}}) {
            const GateDecision decision =
                gate_against_incumbent(incumbent, challenger, policy, 0.0);
            EXPECT_EQ(decision.verdict, Verdict::retain) << to_string(status);
            EXPECT_FALSE(decision.margin_pct);
            EXPECT_TRUE(contains(decision.reason, std::string(to_string(status))));
        }
    }
}

TEST(Gate, FamilyBarIsHonoured) {
    PromotionPolicy strict = policy;
    strict.min_improvement_pct = 5.0;
    EXPECT_EQ(gate_against_incumbent(ok(100.0), ok(96.0), strict, 0.0).verdict, Verdict::retain);
    EXPECT_EQ(gate_against_incumbent(ok(100.0), ok(95.0), strict, 0.0).verdict, Verdict::promote);
}

TEST(Gate, RejectsBrokenInputs) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_THROW(gate_against_incumbent(ok(100.0), ok(90.0), policy, -1.0), InternalError);
    EXPECT_THROW(gate_against_incumbent(ok(100.0), ok(90.0), policy, nan), InternalError);
    EXPECT_THROW(gate_against_incumbent(ok(0.0), ok(90.0), policy, 0.0), InternalError);
    EXPECT_THROW(gate_against_incumbent(ok(100.0), ok(nan), policy, 0.0), InternalError);
    EXPECT_THROW(gate_against_incumbent(ok(100.0), ok(90.0, -1.0), policy, 0.0), InternalError);
    EXPECT_THROW(gate_against_incumbent(ok(100.0, nan), ok(90.0), policy, 0.0), InternalError);
}

TEST(NoiseFloor, IsSigmasCombinedStandardErrorsInPercentOfTheIncumbent) {
    // 2 * sqrt(3^2 + 4^2) = 10 us, of a 200 us incumbent: 5%.
    EXPECT_DOUBLE_EQ(noise_floor_pct(200.0, 3.0, 4.0, 2.0), 5.0);
    EXPECT_DOUBLE_EQ(noise_floor_pct(200.0, 0.0, 0.0, 2.0), 0.0);
    EXPECT_DOUBLE_EQ(noise_floor_pct(100.0, 1.0, 0.0, 3.0), 3.0);
}

TEST(NoiseFloor, RejectsNonPositiveMeanAndNegativeErrors) {
    EXPECT_THROW(noise_floor_pct(0.0, 1.0, 1.0, 2.0), InternalError);
    EXPECT_THROW(noise_floor_pct(100.0, -1.0, 1.0, 2.0), InternalError);
    EXPECT_THROW(noise_floor_pct(100.0, 1.0, -1.0, 2.0), InternalError);
}

PairedComparison paired(std::size_t rounds, double mean_log_ratio, double stderr_log_ratio) {
    PairedComparison result;
    result.rounds = rounds;
    result.mean_log_ratio = mean_log_ratio;
    result.stderr_log_ratio = stderr_log_ratio;
    result.stddev_log_ratio = stderr_log_ratio * std::sqrt(static_cast<double>(rounds));
    result.margin_pct = -std::expm1(-mean_log_ratio) * 100.0;
    return result;
}

TEST(PairedNoiseFloor, IsTheTCriticalValueTimesTheStandardErrorOnTheRatioScale) {
    // t(0.95, 4 dof) = 2.131847 (any t table): 2.131847 * 0.01 = 0.02131847 in log ratio.
    EXPECT_NEAR(paired_noise_floor_pct(paired(5, 0.0, 0.01), 0.05),
                (1.0 - std::exp(-0.02131847)) * 100.0, 1e-5);
    // More rounds, same standard error: a smaller quantile (t(0.95, 8 dof) = 1.859548).
    EXPECT_NEAR(paired_noise_floor_pct(paired(9, 0.0, 0.01), 0.05),
                (1.0 - std::exp(-0.01859548)) * 100.0, 1e-5);
    // A smaller level, a larger floor; no spread, no floor.
    EXPECT_GT(paired_noise_floor_pct(paired(5, 0.0, 0.01), 0.01),
              paired_noise_floor_pct(paired(5, 0.0, 0.01), 0.05));
    EXPECT_DOUBLE_EQ(paired_noise_floor_pct(paired(5, 0.1, 0.0), 0.01), 0.0);
    EXPECT_THROW(paired_noise_floor_pct(paired(5, 0.0, 0.01), 0.0), InternalError);
    EXPECT_THROW(paired_noise_floor_pct(paired(1, 0.0, 0.01), 0.05), InternalError);
}

// A margin at the noise floor is exactly a rejection at the test's level: the floor and the
// one-sided p-value describe the same test.
TEST(PairedNoiseFloor, AMarginAtTheFloorHasAPValueOfTheLevel) {
    for (const std::size_t rounds : {2U, 3U, 5U, 9U, 30U}) {
        for (const double alpha : {0.05, 0.01, 0.0025}) {
            const double floor_pct = paired_noise_floor_pct(paired(rounds, 0.0, 0.02), alpha);
            const double log_ratio = -std::log1p(-floor_pct / 100.0);
            EXPECT_NEAR(one_sided_p_value(paired(rounds, log_ratio, 0.02)), alpha, 1e-9)
                << rounds << " rounds at " << alpha;
        }
    }
}

TEST(PromotionBar, IsTheLargerOfMinimumAndNoiseByDefault) {
    EXPECT_DOUBLE_EQ(promotion_bar_pct(policy, 1.0), 3.0);
    EXPECT_DOUBLE_EQ(promotion_bar_pct(policy, 4.5), 4.5);
}

TEST(PromotionBar, WithTheLowerBoundGateIsTheMarginWhoseLowerBoundIsTheMinimum) {
    PromotionPolicy lower_bound = policy;
    lower_bound.lower_bound_gate = true;
    // 1 - (1 - 0.03) * (1 - 0.02) = 0.0494: 3% on top of what remains after the 2% floor.
    EXPECT_NEAR(promotion_bar_pct(lower_bound, 2.0), 4.94, 1e-12);
    EXPECT_DOUBLE_EQ(promotion_bar_pct(lower_bound, 0.0), 3.0);
    const GateDecision near_bar = gate_against_incumbent(ok(100.0), ok(96.0), lower_bound, 2.0);
    EXPECT_EQ(near_bar.verdict, Verdict::retain);
    EXPECT_NEAR(near_bar.bar_pct, 4.94, 1e-12);
    EXPECT_TRUE(contains(near_bar.reason, "lower bound")) << near_bar.reason;
    EXPECT_EQ(gate_against_incumbent(ok(100.0), ok(96.0), policy, 2.0).verdict, Verdict::promote);
    EXPECT_EQ(gate_against_incumbent(ok(100.0), ok(95.0), lower_bound, 2.0).verdict,
              Verdict::promote);
}

TEST(Gate, APairedMarginReplacesTheRatioOfTheMeans) {
    // Means 100 vs 99 (1%), but the rounds, compared one by one, say 5%.
    const GateDecision decision = gate_against_incumbent(ok(100.0), ok(99.0), policy, 1.0, 5.0);
    EXPECT_EQ(decision.verdict, Verdict::promote);
    EXPECT_DOUBLE_EQ(decision.margin_pct.value(), 5.0);
    const GateDecision without = gate_against_incumbent(ok(100.0), ok(99.0), policy, 1.0);
    EXPECT_EQ(without.verdict, Verdict::retain);
}

TEST(Verdict, HasStableNames) {
    EXPECT_EQ(to_string(Verdict::promote), "promote");
    EXPECT_EQ(to_string(Verdict::retain), "retain");
}

TEST(Measured, TakesStatusMeanAndStderrOfAResult) {
    CandidateResult result;
    result.status = Status::mismatch;
    result.timing.mean_us = 12.5;
    result.timing.stderr_us = 0.25;
    const Measured measured = measured_from(result);
    EXPECT_EQ(measured.status, Status::mismatch);
    EXPECT_DOUBLE_EQ(measured.mean_us, 12.5);
    EXPECT_DOUBLE_EQ(measured.stderr_us, 0.25);
}

TEST(Measured, OnlyOkMeasurementsAreChecked) {
    EXPECT_NO_THROW(check_measured(Measured{Status::crash, -1.0, -1.0}, "x"));
    EXPECT_THROW(check_measured(ok(-1.0), "x"), InternalError);
    try {
        check_measured(ok(std::numeric_limits<double>::infinity()), "incumbent of chunk 7");
        FAIL();
    } catch (const InternalError& error) {
        EXPECT_TRUE(contains(error.what(), "incumbent of chunk 7")) << error.what();
    }
}

}  // namespace
}  // namespace fhmoe::tuning
