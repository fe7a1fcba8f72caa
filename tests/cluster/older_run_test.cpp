// A real run written before /decisions had its race_* fields and before race records carried
// their times, in schema_version 1, which named the best challenger "winner"
// (tests/data/run_before_race_times): today's code must still read its archive,
// rebuild the archive from its journal, and diff the two across the upgrade. Nightly retunes
// compare tonight's archive with last night's, and a tool upgrade must not break that.

#include <gtest/gtest.h>

#include <string>

#include "evidence/evidence_compare.hpp"
#include "fhmoe/cluster/run_evidence_builder.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/evidence_diff.hpp"
#include "fhmoe/evidence/journal.hpp"

namespace fhmoe::cluster {
namespace {

const std::string kRunDir = std::string(FHMOE_SOURCE_DIR) + "/tests/data/run_before_race_times";

TEST(OlderRun, ItsArchiveReadsWithTheRaceColumnsAbsent) {
    const evidence::RunEvidence run = evidence::read_archive(kRunDir + "/evidence.h5");
    EXPECT_EQ(run.provenance.tool_version, "0.1.0+gb86755e34e14");
    EXPECT_TRUE(run.provenance.complete);
    EXPECT_EQ(run.shapes.size(), 5U);
    EXPECT_EQ(run.candidates.size(), 40U) << "8 sampled per shape, the incumbent among them";
    EXPECT_FALSE(run.race.empty());
    ASSERT_EQ(run.decisions.size(), 5U);
    for (const auto& decision : run.decisions) {
        EXPECT_EQ(decision.race_rank, -1) << "the archive has no race columns";
        EXPECT_TRUE(decision.race_host.empty());
        EXPECT_EQ(decision.race_started_unix_ns, 0);
    }
}

// schema_version 1 stored the best challenger as winner_key/_us/_stderr_us; this build reads
// them as best_challenger_* (a reader that looked for the new names would fail the open).
TEST(OlderRun, ItsSchemaVersion1WinnerColumnsReadAsTheBestChallenger) {
    const evidence::RunEvidence run = evidence::read_archive(kRunDir + "/evidence.h5");
    ASSERT_EQ(run.decisions.size(), 5U);
    for (const auto& decision : run.decisions) {
        if (decision.decision != evidence::Decision::promote &&
            decision.decision != evidence::Decision::retain) {
            continue;
        }
        EXPECT_FALSE(decision.best_challenger_key.empty());
        EXPECT_GT(decision.best_challenger_us, 0.0);
        EXPECT_GT(decision.best_challenger_stderr_us, 0.0);
        EXPECT_EQ(evidence::published_key(decision),
                  decision.decision == evidence::Decision::promote ? decision.best_challenger_key
                                                                   : decision.incumbent_key);
    }
}

TEST(OlderRun, ItsJournalRebuildsTheSameDecisionsAndKnowsWhereEachRaceRan) {
    const evidence::RunEvidence archived = evidence::read_archive(kRunDir + "/evidence.h5");
    const evidence::RunEvidence rebuilt =
        build_run_evidence(evidence::read_journal(kRunDir + "/tune.journal"));
    // Everything but the decisions' race columns, which the old archive lacks.
    evidence::RunEvidence rebuilt_as_v1 = rebuilt;
    for (auto& decision : rebuilt_as_v1.decisions) {
        decision.race_rank = -1;
        decision.race_host.clear();
    }
    const auto differences = evidence::evidence_differences(archived, rebuilt_as_v1);
    EXPECT_TRUE(differences.empty())
        << differences.size()
        << " differences, first: " << (differences.empty() ? "" : differences[0]);
    ASSERT_EQ(rebuilt.decisions.size(), archived.decisions.size());
    for (std::size_t i = 0; i < rebuilt.decisions.size(); ++i) {
        const auto& now = rebuilt.decisions[i];
        const auto& then = archived.decisions[i];
        EXPECT_EQ(now.decision, then.decision);
        EXPECT_EQ(now.best_challenger_key, then.best_challenger_key);
        EXPECT_EQ(now.reason, then.reason);
        // The old journal's race records name their rank and host, but not their times.
        EXPECT_GE(now.race_rank, 0);
        EXPECT_LT(now.race_rank, 4);
        EXPECT_FALSE(now.race_host.empty());
        EXPECT_EQ(now.race_started_unix_ns, 0);
        EXPECT_EQ(now.race_finished_unix_ns, 0);
    }
}

// The journal is in frame version 2, before a candidate's stage1 carried k_splits: its planned
// candidates read with the derived split, which is what that run measured.
TEST(OlderRun, ItsVersion2PlanReadsWithTheDerivedKSplit) {
    const evidence::JournalContents journal = evidence::read_journal(kRunDir + "/tune.journal");
    ASSERT_EQ(journal.header.shapes.size(), 5U);
    std::size_t candidates = 0;
    for (const auto& planned : journal.header.shapes) {
        for (const auto& candidate : planned.candidates) {
            EXPECT_EQ(candidate.stage1.k_splits, 0);
            ++candidates;
        }
    }
    EXPECT_EQ(candidates, 40U);
}

TEST(OlderRun, DiffAcrossTheUpgradeOfOneRunFindsNothing) {
    const evidence::RunEvidence archived = evidence::read_archive(kRunDir + "/evidence.h5");
    const evidence::RunEvidence rebuilt =
        build_run_evidence(evidence::read_journal(kRunDir + "/tune.journal"));
    const auto changes = evidence::diff_evidence(archived, rebuilt);
    EXPECT_TRUE(changes.empty()) << changes.size() << " changes, first: "
                                 << (changes.empty() ? "" : changes[0].shape);
}

}  // namespace
}  // namespace fhmoe::cluster
