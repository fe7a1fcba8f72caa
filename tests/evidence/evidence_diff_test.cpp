#include <gtest/gtest.h>

#include "evidence/evidence_generator.hpp"
#include "fhmoe/evidence/evidence_diff.hpp"

namespace fhmoe::evidence {
namespace {

using testing::generate_evidence;
using testing::GeneratorOptions;

RunEvidence last_night() { return generate_evidence(GeneratorOptions{.seed = 31, .shapes = 20}); }

DecisionRecord& first_decision(RunEvidence& run, Decision kind) {
    for (DecisionRecord& decision : run.decisions) {
        if (decision.decision == kind && !decision.best_challenger_key.empty()) return decision;
    }
    throw std::logic_error("the generator made no such decision");
}

std::string identity_of(const RunEvidence& run, std::uint32_t shape_id) {
    return shape_identity(run.shapes[shape_id]);
}

TEST(Diff, ARunHasNoChangesAgainstItself) {
    const RunEvidence run = last_night();
    EXPECT_TRUE(diff_evidence(run, run).empty());
}

constexpr const char* kOtherKey = "bm64|fhmoe_s1_t64x64x256_w2_gui|fhmoe_s2_t64x128x128_atomic_v99";

TEST(Diff, APromotedShapePublishingAnotherCandidateIsPublishedChanged) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    DecisionRecord& decision = first_decision(new_run, Decision::promote);
    const std::string old_key = decision.best_challenger_key;
    decision.best_challenger_key = kOtherKey;
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].kind, ChangeKind::published_changed);
    EXPECT_EQ(to_string(changes[0].kind), "published_changed");
    EXPECT_EQ(changes[0].shape, identity_of(new_run, decision.shape_id));
    EXPECT_EQ(changes[0].old_value, old_key);
    EXPECT_EQ(changes[0].new_value, kOtherKey);
}

TEST(Diff, ARetainedShapeWithAnotherBestChallengerKeepsWhatItPublishes) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    DecisionRecord& decision = first_decision(new_run, Decision::retain);
    const std::string old_challenger = decision.best_challenger_key;
    decision.best_challenger_key = kOtherKey;
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].kind, ChangeKind::best_challenger_changed);
    EXPECT_EQ(changes[0].candidate, decision.incumbent_key) << "the published one, unchanged";
    EXPECT_EQ(changes[0].old_value, old_challenger);
    EXPECT_EQ(changes[0].new_value, kOtherKey);
}

// The report the issue found misleading: a challenger that lost both nights got slower.
// Serving never ran it, so nothing it uses moved.
TEST(Diff, ALosingChallengersTimeIsNotAPublishedTime) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    first_decision(new_run, Decision::retain).best_challenger_us *= 1.10;
    EXPECT_TRUE(diff_evidence(old_run, new_run).empty());
}

TEST(Diff, ARetainedIncumbentsTimeBeyondNoiseAndMinimumMoves) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    DecisionRecord& decision = first_decision(new_run, Decision::retain);
    decision.incumbent_us *= 1.10;
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].kind, ChangeKind::published_time_moved);
    EXPECT_EQ(to_string(changes[0].kind), "published_time_moved");
    EXPECT_EQ(changes[0].candidate, decision.incumbent_key);
    EXPECT_NE(changes[0].detail.find("+10.00%"), std::string::npos) << changes[0].detail;
}

TEST(Diff, APromotedBestChallengersTimeBeyondNoiseAndMinimumMoves) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    DecisionRecord& decision = first_decision(new_run, Decision::promote);
    decision.best_challenger_us *= 0.90;
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].kind, ChangeKind::published_time_moved);
    EXPECT_EQ(changes[0].candidate, decision.best_challenger_key);
    EXPECT_NE(changes[0].detail.find("-10.00%"), std::string::npos) << changes[0].detail;
}

TEST(Diff, APublishedTimeWithinNoiseOrBelowTheMinimumDoesNotMove) {
    const RunEvidence old_run = last_night();
    RunEvidence noisy = old_run;
    DecisionRecord& decision = first_decision(noisy, Decision::promote);
    // 5% slower, but each measurement's standard error is 3%: 2 * sqrt(2) * 3% = 8.5% noise.
    decision.best_challenger_us *= 1.05;
    decision.best_challenger_stderr_us = decision.best_challenger_us * 0.03;
    RunEvidence noisy_old = old_run;
    first_decision(noisy_old, Decision::promote).best_challenger_stderr_us =
        decision.best_challenger_us * 0.03;
    EXPECT_TRUE(diff_evidence(noisy_old, noisy).empty());

    RunEvidence drifted = old_run;
    first_decision(drifted, Decision::promote).best_challenger_us *= 1.008;  // beyond noise, < 1%
    EXPECT_TRUE(diff_evidence(old_run, drifted).empty());
    EXPECT_EQ(diff_evidence(old_run, drifted, DiffOptions{.sigmas = 2.0, .min_pct = 0.5}).size(),
              1u);
}

// promote -> retain: the decision changed, and so did what serving uses (the incumbent again).
TEST(Diff, AChangedDecisionSaysWhatIsPublishedNow) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    DecisionRecord& decision = first_decision(new_run, Decision::promote);
    decision.decision = Decision::retain;
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 2u);
    EXPECT_EQ(changes[0].kind, ChangeKind::decision_changed);
    EXPECT_EQ(changes[0].old_value, "promote");
    EXPECT_EQ(changes[0].new_value, "retain");
    EXPECT_EQ(changes[1].kind, ChangeKind::published_changed);
    EXPECT_EQ(changes[1].old_value, decision.best_challenger_key);
    EXPECT_EQ(changes[1].new_value, decision.incumbent_key);

    // A decision that publishes nothing tonight is the decision change alone.
    RunEvidence failed = old_run;
    first_decision(failed, Decision::promote).decision = Decision::all_failed;
    const auto only = diff_evidence(old_run, failed);
    ASSERT_EQ(only.size(), 1u);
    EXPECT_EQ(only[0].kind, ChangeKind::decision_changed);
}

TEST(Diff, ACandidateOkLastNightFailingTonightIsANewFailure) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    CandidateRecord* planted = nullptr;
    for (CandidateRecord& candidate : new_run.candidates) {
        if (candidate.result.status == tuning::Status::ok) planted = &candidate;
    }
    ASSERT_NE(planted, nullptr);
    planted->result.status = tuning::Status::timeout;
    planted->result.detail = "passed its 60 s deadline";
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].kind, ChangeKind::new_failure);
    EXPECT_EQ(changes[0].candidate, planted->result.candidate.key());
    EXPECT_EQ(changes[0].new_value, "timeout");
    EXPECT_EQ(changes[0].detail, "passed its 60 s deadline");
}

TEST(Diff, AFailureThatIsNotNewIsNotReported) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    for (CandidateRecord& candidate : new_run.candidates) {
        if (candidate.result.status == tuning::Status::crash) {
            candidate.result.status = tuning::Status::timeout;  // failed both nights
        }
    }
    EXPECT_TRUE(diff_evidence(old_run, new_run).empty());
}

TEST(Diff, ShapesAddedAndRemovedAreReported) {
    const RunEvidence base = last_night();
    RunEvidence with_extra = base;
    ShapeRecord extra = base.shapes.front();
    extra.device.cu_num = 80;  // same key on another device is another shape
    with_extra.shapes.push_back(extra);

    const auto added = diff_evidence(base, with_extra);
    ASSERT_EQ(added.size(), 1u);
    EXPECT_EQ(added[0].kind, ChangeKind::shape_added);
    EXPECT_EQ(added[0].shape, "cpu/80/" + extra.shape_key);
    EXPECT_EQ(added[0].new_value, "pending");

    const auto removed = diff_evidence(with_extra, base);
    ASSERT_EQ(removed.size(), 1u);
    EXPECT_EQ(removed[0].kind, ChangeKind::shape_removed);
    EXPECT_EQ(removed[0].shape, "cpu/80/" + extra.shape_key);
}

}  // namespace
}  // namespace fhmoe::evidence
