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
        if (decision.decision == kind && !decision.winner_key.empty()) return decision;
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

TEST(Diff, AChangedWinnerIsTheOnlyChange) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    DecisionRecord& decision = first_decision(new_run, Decision::promote);
    decision.winner_key = "bm64|fhmoe_s1_t64x64x256_w2_gui|fhmoe_s2_t64x128x128_atomic_v99";
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].kind, ChangeKind::winner_changed);
    EXPECT_EQ(changes[0].shape, identity_of(new_run, decision.shape_id));
    EXPECT_EQ(changes[0].new_value, decision.winner_key);
}

TEST(Diff, AWinnerTimeBeyondNoiseAndMinimumMoves) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    DecisionRecord& decision = first_decision(new_run, Decision::retain);
    decision.winner_us *= 1.10;
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].kind, ChangeKind::winner_time_moved);
    EXPECT_EQ(changes[0].candidate, decision.winner_key);
    EXPECT_NE(changes[0].detail.find("+10.00%"), std::string::npos) << changes[0].detail;
}

TEST(Diff, AWinnerTimeWithinNoiseOrBelowTheMinimumDoesNotMove) {
    const RunEvidence old_run = last_night();
    RunEvidence noisy = old_run;
    DecisionRecord& decision = first_decision(noisy, Decision::promote);
    // 5% slower, but each measurement's standard error is 3%: 2 * sqrt(2) * 3% = 8.5% noise.
    decision.winner_us *= 1.05;
    decision.winner_stderr_us = decision.winner_us * 0.03;
    RunEvidence noisy_old = old_run;
    first_decision(noisy_old, Decision::promote).winner_stderr_us = decision.winner_us * 0.03;
    EXPECT_TRUE(diff_evidence(noisy_old, noisy).empty());

    RunEvidence drifted = old_run;
    first_decision(drifted, Decision::promote).winner_us *= 1.008;  // beyond noise, under 1%
    EXPECT_TRUE(diff_evidence(old_run, drifted).empty());
    EXPECT_EQ(diff_evidence(old_run, drifted, DiffOptions{.sigmas = 2.0, .min_pct = 0.5}).size(),
              1u);
}

TEST(Diff, AChangedDecisionIsTheOnlyChange) {
    const RunEvidence old_run = last_night();
    RunEvidence new_run = old_run;
    DecisionRecord& decision = first_decision(new_run, Decision::promote);
    decision.decision = Decision::retain;
    const auto changes = diff_evidence(old_run, new_run);
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].kind, ChangeKind::decision_changed);
    EXPECT_EQ(changes[0].old_value, "promote");
    EXPECT_EQ(changes[0].new_value, "retain");
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
