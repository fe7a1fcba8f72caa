// The fold of journal records into the archive's RunEvidence, on hand-made journals: what a
// resume, a stop and a kill leave in a journal must come out as the tuner's live state had it.

#include <gtest/gtest.h>

#include "cluster_fixtures.hpp"
#include "fhmoe/cluster/run_evidence_builder.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::cluster {
namespace {

using testing::planned_shape;
using testing::result_of;
using tuning::Status;

evidence::SessionStartedRecord session(int world_size, const std::string& marker) {
    evidence::SessionStartedRecord record;
    record.command_line = {"fhmoe_tune_mpi", marker};
    record.backend = "sim";
    record.seed = 5;
    record.device = family::DeviceKey{"sim", 1};
    record.world_size = world_size;
    record.started_unix = 1000;
    record.tool_version = "9.9";
    record.policy = {{"iters", 10.0}};
    return record;
}

evidence::ShapeDecision decision_of(const evidence::PlannedShape& planned,
                                    evidence::DecisionKind kind) {
    evidence::ShapeDecision decision;
    decision.shape_key = family::shape_key_string(planned.shape);
    decision.kind = kind;
    decision.incumbent = family::to_candidate_id(
        planned.candidates.at(static_cast<std::size_t>(planned.incumbent_index)));
    decision.reason = std::string(evidence::to_string(kind));
    return decision;
}

// One shape of 4 candidates (the incumbent last); the first session measures 3 of them.
evidence::JournalContents first_session_journal() {
    evidence::JournalContents journal;
    journal.header.shapes.push_back(planned_shape(16, 4));
    journal.header.tool_version = "9.9";
    const auto& planned = journal.header.shapes.front();
    journal.records.emplace_back(session(2, "first"));
    journal.records.emplace_back(evidence::RankJoinedRecord{0, "node-a", "cpu"});
    journal.records.emplace_back(evidence::RankJoinedRecord{1, "node-b", "cpu"});
    journal.records.emplace_back(result_of(planned, 3, 0, Status::ok, 100.0));
    journal.records.emplace_back(result_of(planned, 0, 0, Status::ok, 50.0));
    journal.records.emplace_back(result_of(planned, 1, 0, Status::crash));
    return journal;
}

TEST(RunEvidenceBuilder, AKilledSessionIsAPartialRunWithEveryPlannedCandidateARow) {
    const auto run = build_run_evidence(first_session_journal());
    EXPECT_FALSE(run.provenance.complete);
    EXPECT_EQ(run.provenance.exit_status, -1);
    EXPECT_EQ(run.provenance.finished_unix, 0);
    ASSERT_EQ(run.provenance.ranks.size(), 2U);
    EXPECT_EQ(run.provenance.ranks[1].host, "node-b");
    EXPECT_EQ(run.provenance.ranks[1].device_name, "sim");
    ASSERT_EQ(run.shapes.size(), 1U);
    EXPECT_EQ(run.shapes[0].device, (family::DeviceKey{"sim", 1}));
    ASSERT_EQ(run.candidates.size(), 4U);
    EXPECT_EQ(run.candidates[0].result.status, Status::ok);
    EXPECT_DOUBLE_EQ(run.candidates[0].relative_to_incumbent, 0.5);
    EXPECT_EQ(run.candidates[0].ratio_basis, evidence::RatioBasis::same_chunk_incumbent);
    EXPECT_EQ(run.candidates[1].result.status, Status::crash);
    EXPECT_EQ(run.candidates[2].result.status, Status::not_run);
    EXPECT_TRUE(run.decisions.empty());
}

TEST(RunEvidenceBuilder, AResumeDropsTheEarlierIncompleteDecisionAndReportsItsOwnSession) {
    auto journal = first_session_journal();
    const auto planned = journal.header.shapes.front();
    journal.records.emplace_back(decision_of(planned, evidence::DecisionKind::incomplete));
    // Before the resume, the archive shows the incomplete decision.
    ASSERT_EQ(build_run_evidence(journal).decisions.size(), 1U);

    journal.records.emplace_back(session(1, "resumed"));
    journal.records.emplace_back(evidence::RankJoinedRecord{0, "node-c", "cpu"});
    auto stopped = evidence::RaceOutcomeRecord{};
    stopped.shape_key = family::shape_key_string(planned.shape);
    stopped.stopped = true;
    stopped.contenders.push_back(evidence::RaceContenderRecord{
        3, family::to_candidate_id(planned.candidates[3]), true, Status::ok, "", {{1.0}}});
    journal.records.emplace_back(stopped);
    const auto without_decision = build_run_evidence(journal);
    EXPECT_TRUE(without_decision.decisions.empty()) << "the resume retries the shape";
    EXPECT_TRUE(without_decision.race.empty()) << "a stopped race decides nothing";

    journal.records.emplace_back(result_of(planned, 2, 5, Status::ok, 80.0));
    journal.records.emplace_back(decision_of(planned, evidence::DecisionKind::retain));
    journal.records.emplace_back(evidence::SessionEndedRecord{2000, 0});
    const auto run = build_run_evidence(journal);
    EXPECT_TRUE(run.provenance.complete);
    EXPECT_EQ(run.provenance.exit_status, 0);
    EXPECT_EQ(run.provenance.finished_unix, 2000);
    EXPECT_EQ(run.provenance.command_line.back(), "resumed");
    ASSERT_EQ(run.provenance.ranks.size(), 1U);
    EXPECT_EQ(run.provenance.ranks[0].host, "node-c");
    ASSERT_EQ(run.decisions.size(), 1U);
    EXPECT_EQ(run.decisions[0].decision, evidence::Decision::retain);
    EXPECT_EQ(run.candidates[2].result.status, Status::ok);
    // Chunk 5 timed no incumbent: its ratio is against the other chunks' incumbent.
    EXPECT_EQ(run.candidates[2].ratio_basis, evidence::RatioBasis::other_chunks_incumbent);
}

TEST(RunEvidenceBuilder, ARecordOfAnUnplannedShapeOrAnUnknownRankIsAnError) {
    auto journal = first_session_journal();
    auto stray = result_of(planned_shape(32, 4), 0, 0, Status::ok, 1.0);
    journal.records.emplace_back(stray);
    EXPECT_THROW(build_run_evidence(journal), Error);

    auto ranks = first_session_journal();
    ranks.records.emplace_back(evidence::RankJoinedRecord{2, "node-x", "cpu"});
    EXPECT_THROW(build_run_evidence(ranks), Error);
}

}  // namespace
}  // namespace fhmoe::cluster
