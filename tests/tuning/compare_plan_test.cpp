#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/compare_plan.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace fhmoe::tuning {
namespace {

// aiter's run_config statuses map onto ours: "ok" -> ok, "mismatch:..." -> mismatch,
// "error:..." -> a fault (crash here).
Measured ok(double us, double stderr_us = 0.0) { return Measured{Status::ok, us, stderr_us}; }
const Measured error{Status::crash, -1.0, 0.0};

const PromotionPolicy policy = default_policy().promotion;

CompareRow only_row(const std::map<std::string, Measured>& pre,
                    const std::map<std::string, Measured>& post) {
    const auto plan = build_compare_plan(pre, post, policy);
    if (plan.size() != 1) throw InternalError("expected one row");
    return plan.front();
}

TEST(ComparePlan, FiftyPercentMeetsTheThreshold) {
    const CompareRow row = only_row({{"m64", ok(100.0)}}, {{"m64", ok(50.0)}});
    EXPECT_EQ(row.shape_key, "m64");
    EXPECT_EQ(row.update_reason, UpdateReason::threshold_met);
    EXPECT_DOUBLE_EQ(row.improvement_pct, 50.0);
    EXPECT_TRUE(row.update);
    ASSERT_TRUE(row.pre && row.post);
    EXPECT_DOUBLE_EQ(row.pre->mean_us, 100.0);
}

TEST(ComparePlan, OnePercentIsSkipped) {
    const CompareRow row = only_row({{"m64", ok(100.0)}}, {{"m64", ok(99.0)}});
    EXPECT_EQ(row.update_reason, UpdateReason::skip);
    EXPECT_DOUBLE_EQ(row.improvement_pct, 1.0);
    EXPECT_FALSE(row.update);
}

TEST(ComparePlan, PreErrorWithPostOkHasNoBaseline) {
    const CompareRow row = only_row({{"m64", error}}, {{"m64", ok(50.0)}});
    EXPECT_EQ(row.update_reason, UpdateReason::no_baseline);
    EXPECT_TRUE(std::isnan(row.improvement_pct));
    EXPECT_TRUE(row.update);
}

TEST(ComparePlan, PreMismatchWithPostOkHasNoBaseline) {
    const CompareRow row =
        only_row({{"m64", Measured{Status::mismatch, 10.0, 0.0}}}, {{"m64", ok(50.0)}});
    EXPECT_EQ(row.update_reason, UpdateReason::no_baseline);
}

TEST(ComparePlan, PostErrorIsSkipped) {
    const CompareRow row = only_row({{"m64", ok(100.0)}}, {{"m64", error}});
    EXPECT_EQ(row.update_reason, UpdateReason::skip);
    EXPECT_TRUE(std::isnan(row.improvement_pct));
    EXPECT_FALSE(row.update);
}

TEST(ComparePlan, BothErrorIsSkipped) {
    const CompareRow row = only_row({{"m64", error}}, {{"m64", error}});
    EXPECT_EQ(row.update_reason, UpdateReason::skip);
    EXPECT_TRUE(std::isnan(row.improvement_pct));
    EXPECT_FALSE(row.update);
}

TEST(ComparePlan, EmptyPreOrPostGivesAnEmptyPlan) {
    EXPECT_TRUE(build_compare_plan({}, {{"m64", ok(50.0)}}, policy).empty());
    EXPECT_TRUE(build_compare_plan({{"m64", ok(50.0)}}, {}, policy).empty());
    EXPECT_TRUE(build_compare_plan({}, {}, policy).empty());
}

TEST(ComparePlan, MixedSetOfThreeUpdatesOne) {
    const auto plan =
        build_compare_plan({{"m16", ok(100.0)}, {"m32", ok(100.0)}, {"m64", ok(100.0)}},
                           {{"m16", ok(80.0)}, {"m32", ok(99.0)}, {"m64", error}}, policy);
    ASSERT_EQ(plan.size(), 3u);
    int updates = 0;
    for (const auto& row : plan) updates += row.update ? 1 : 0;
    EXPECT_EQ(updates, 1);
    EXPECT_EQ(plan[0].shape_key, "m16");
    EXPECT_TRUE(plan[0].update);
}

TEST(ComparePlan, RegressionHasNegativePercentAndIsSkipped) {
    const CompareRow row = only_row({{"m64", ok(100.0)}}, {{"m64", ok(120.0)}});
    EXPECT_EQ(row.update_reason, UpdateReason::skip);
    EXPECT_DOUBLE_EQ(row.improvement_pct, -20.0);
    EXPECT_FALSE(row.update);
}

TEST(ComparePlan, KeysOnOneSideOnlyFollowTheOuterMerge) {
    const auto plan = build_compare_plan({{"only_pre", ok(100.0)}, {"both", ok(100.0)}},
                                         {{"only_post", ok(100.0)}, {"both", ok(90.0)}}, policy);
    ASSERT_EQ(plan.size(), 3u);  // key order: both, only_post, only_pre
    EXPECT_EQ(plan[0].update_reason, UpdateReason::threshold_met);
    EXPECT_EQ(plan[1].shape_key, "only_post");
    EXPECT_EQ(plan[1].update_reason, UpdateReason::no_baseline);
    EXPECT_FALSE(plan[1].pre);
    EXPECT_EQ(plan[2].shape_key, "only_pre");
    EXPECT_EQ(plan[2].update_reason, UpdateReason::skip);
    EXPECT_FALSE(plan[2].post);
    EXPECT_EQ(plan[2].detail, "no post-tune measurement");
}

TEST(ComparePlan, UsesTheGatesBar) {
    // Exactly 3%, even where binary rounding makes it 2.9999999999999947%.
    EXPECT_EQ(only_row({{"k", ok(97.5)}}, {{"k", ok(94.575)}}).update_reason,
              UpdateReason::threshold_met);
    EXPECT_EQ(only_row({{"k", ok(100.0)}}, {{"k", ok(97.01)}}).update_reason, UpdateReason::skip);
    // Noisy measurements raise the bar exactly as in the race: 2 * sqrt(2^2 + 2^2) = 5.66%.
    const CompareRow noisy = only_row({{"k", ok(100.0, 2.0)}}, {{"k", ok(96.0, 2.0)}});
    EXPECT_EQ(noisy.update_reason, UpdateReason::skip);
    EXPECT_DOUBLE_EQ(noisy.improvement_pct, 4.0);
    // A family's bar applies to --compare as to the gate.
    PromotionPolicy strict = policy;
    strict.min_improvement_pct = 25.0;
    EXPECT_FALSE(build_compare_plan({{"k", ok(100.0)}}, {{"k", ok(80.0)}}, strict)[0].update);
}

TEST(ComparePlan, AgreesWithTheGateOnEveryPair) {
    std::mt19937 random(5846);
    std::uniform_real_distribution<double> time(10.0, 20.0);
    std::uniform_real_distribution<double> spread(0.0, 0.3);
    std::uniform_int_distribution<int> status_pick(0, 9);
    auto draw = [&] {
        const int pick = status_pick(random);
        if (pick == 0) return Measured{Status::crash, 0.0, 0.0};
        if (pick == 1) return Measured{Status::mismatch, time(random), 0.0};
        return ok(time(random), spread(random));
    };
    for (int trial = 0; trial < 2000; ++trial) {
        const Measured pre = draw();
        const Measured post = draw();
        const CompareRow row = only_row({{"k", pre}}, {{"k", post}});
        const double noise =
            pre.status == Status::ok && post.status == Status::ok
                ? noise_floor_pct(pre.mean_us, pre.stderr_us, post.stderr_us,
                                  normal_quantile(1.0 - policy.false_promotion_rate))
                : 0.0;
        const GateDecision gate = gate_against_incumbent(pre, post, policy, noise);
        EXPECT_EQ(row.update, gate.verdict == Verdict::promote) << "trial " << trial;
    }
}

TEST(ComparePlan, RejectsOkMeasurementsWithoutATime) {
    EXPECT_THROW(build_compare_plan({{"k", ok(0.0)}}, {{"k", ok(1.0)}}, policy), InternalError);
    EXPECT_THROW(build_compare_plan({{"k", ok(1.0)}}, {{"k", ok(-1.0)}}, policy), InternalError);
}

TEST(UpdateReason, HasAitersNames) {
    EXPECT_EQ(to_string(UpdateReason::threshold_met), "threshold_met");
    EXPECT_EQ(to_string(UpdateReason::no_baseline), "no_baseline");
    EXPECT_EQ(to_string(UpdateReason::skip), "skip");
    EXPECT_EQ(to_string(static_cast<UpdateReason>(42)), "invalid");
}

}  // namespace
}  // namespace fhmoe::tuning
