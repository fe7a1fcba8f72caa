// The fold of journal records into the archive's RunEvidence, on hand-made journals: what a
// resume, a stop and a kill leave in a journal must come out as the tuner's live state had it.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cluster_fixtures.hpp"
#include "evidence/scratch_dir.hpp"
#include "fhmoe/cluster/run_evidence_builder.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/csv_export.hpp"

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

// ---- the archive streamed from a journal file, shape by shape ----------------------------

void write_journal_file(const std::string& path, const evidence::JournalContents& journal) {
    evidence::JournalWriter writer = evidence::JournalWriter::create(path, journal.header);
    for (const auto& record : journal.records) writer.append(record);
    writer.sync();
}

std::string read_whole_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Every table of an archive as the CSV export writes it, file by file: what a reader sees.
std::vector<std::string> exported_tables(const std::string& archive, const std::string& dir) {
    std::filesystem::create_directories(dir);
    std::vector<std::string> tables;
    for (const auto& path : evidence::export_csv(evidence::read_archive(archive), dir)) {
        tables.push_back(std::filesystem::path(path).filename().string() + "\n" +
                         read_whole_file(path));
    }
    return tables;
}

// Three shapes whose records interleave, a resume that drops one shape's incomplete decision
// after that shape's last record, a shape with no record at all, a race and decisions.
evidence::JournalContents interleaved_resumed_journal() {
    evidence::JournalContents journal;
    for (std::int64_t token : {16, 32, 64, 128}) {
        journal.header.shapes.push_back(planned_shape(token, 5));
    }
    journal.header.tool_version = "9.9";
    const auto& a = journal.header.shapes[0];
    const auto& b = journal.header.shapes[1];
    const auto& c = journal.header.shapes[2];  // shapes[3] never gets a record
    journal.records.emplace_back(session(2, "first"));
    journal.records.emplace_back(evidence::RankJoinedRecord{0, "node-a", "cpu"});
    journal.records.emplace_back(result_of(a, 4, 0, Status::ok, 100.0));
    journal.records.emplace_back(result_of(b, 4, 1, Status::ok, 200.0));
    journal.records.emplace_back(result_of(a, 0, 0, Status::ok, 90.0));
    journal.records.emplace_back(result_of(b, 1, 1, Status::crash));
    journal.records.emplace_back(decision_of(b, evidence::DecisionKind::incomplete));
    journal.records.emplace_back(result_of(a, 1, 0, Status::ok, 95.0));
    journal.records.emplace_back(session(1, "resumed"));
    journal.records.emplace_back(evidence::RankJoinedRecord{0, "node-c", "cpu"});
    journal.records.emplace_back(result_of(c, 4, 2, Status::ok, 50.0));
    journal.records.emplace_back(result_of(a, 2, 3, Status::ok, 80.0));
    evidence::RaceOutcomeRecord race;
    race.shape_key = family::shape_key_string(a.shape);
    race.contenders.push_back(evidence::RaceContenderRecord{
        4, family::to_candidate_id(a.candidates[4]), true, Status::ok, "", {{100.0}, {101.0}}});
    race.contenders.push_back(evidence::RaceContenderRecord{
        2, family::to_candidate_id(a.candidates[2]), false, Status::ok, "", {{80.0}, {79.0}}});
    journal.records.emplace_back(race);
    journal.records.emplace_back(decision_of(a, evidence::DecisionKind::promote));
    journal.records.emplace_back(result_of(c, 3, 2, Status::ok, 40.0));
    journal.records.emplace_back(decision_of(c, evidence::DecisionKind::incomplete));
    journal.records.emplace_back(evidence::SessionEndedRecord{3000, 4});
    return journal;
}

TEST(RunEvidenceBuilder, TheStreamedArchiveEqualsTheArchiveOfTheWholeFold) {
    const evidence::testing::ScratchDir dir;
    const auto journal = interleaved_resumed_journal();
    write_journal_file(dir.file("run.journal"), journal);

    evidence::write_archive(dir.file("whole.h5"), build_run_evidence(journal));
    write_archive_from_journal(dir.file("run.journal"), dir.file("streamed.h5"));

    const auto whole = evidence::read_archive(dir.file("whole.h5"));
    const auto streamed = evidence::read_archive(dir.file("streamed.h5"));
    EXPECT_EQ(streamed.provenance, whole.provenance);
    EXPECT_EQ(streamed.shapes, whole.shapes);
    ASSERT_EQ(streamed.candidates.size(), 20U);
    // Shape 1's incomplete decision was dropped by the resume, shape 2's (after it) was not.
    ASSERT_EQ(streamed.decisions.size(), 2U);
    EXPECT_EQ(streamed.decisions[0].shape_id, 0U);
    EXPECT_EQ(streamed.decisions[1].shape_id, 2U);
    EXPECT_EQ(streamed.race.size(), 4U);
    EXPECT_EQ(exported_tables(dir.file("streamed.h5"), dir.file("streamed")),
              exported_tables(dir.file("whole.h5"), dir.file("whole")));

    // Given the plan (as rank 0 holds it), the journal's header is not decoded: same archive.
    write_archive_from_journal(dir.file("run.journal"), dir.file("planned.h5"), &journal.header);
    EXPECT_EQ(exported_tables(dir.file("planned.h5"), dir.file("planned")),
              exported_tables(dir.file("whole.h5"), dir.file("whole2")));
}

// The bound of issue #12, item 9, on the fold: shapes measured one after another are held one
// at a time however many the night has; only shapes whose records overlap are held together.
TEST(RunEvidenceBuilder, TheStreamedFoldHoldsOnlyTheShapesWhoseRecordsOverlap) {
    const evidence::testing::ScratchDir dir;
    for (const std::size_t shapes : {3U, 12U}) {
        evidence::JournalContents journal;
        for (std::size_t i = 0; i < shapes; ++i) {
            journal.header.shapes.push_back(planned_shape(static_cast<std::int64_t>(i + 1), 6));
        }
        journal.records.emplace_back(session(1, "night"));
        // Two shapes at a time, as two ranks would measure them.
        for (std::size_t i = 0; i < shapes; i += 2) {
            for (std::int64_t index = 0; index < 6; ++index) {
                for (std::size_t j = i; j < std::min(i + 2, shapes); ++j) {
                    const auto& planned = journal.header.shapes[j];
                    journal.records.emplace_back(result_of(planned, index,
                                                           static_cast<std::int64_t>(j), Status::ok,
                                                           100.0 + static_cast<double>(index)));
                }
            }
        }
        const std::string name = "night" + std::to_string(shapes);
        write_journal_file(dir.file(name + ".journal"), journal);
        const StreamedArchive streamed =
            write_archive_from_journal(dir.file(name + ".journal"), dir.file(name + ".h5"));
        EXPECT_EQ(streamed.most_shapes_held, 2U) << shapes << " shapes";
        EXPECT_EQ(evidence::read_archive(dir.file(name + ".h5")).candidates.size(), shapes * 6);
    }
}

TEST(RunEvidenceBuilder, AStreamedArchiveThatFailsLeavesTheOldArchiveAsItWas) {
    const evidence::testing::ScratchDir dir;
    const auto journal = interleaved_resumed_journal();
    write_journal_file(dir.file("run.journal"), journal);
    write_archive_from_journal(dir.file("run.journal"), dir.file("evidence.h5"));
    const std::string before = read_whole_file(dir.file("evidence.h5"));

    auto stray = journal;
    stray.records.emplace_back(result_of(planned_shape(999, 4), 0, 0, Status::ok, 1.0));
    write_journal_file(dir.file("stray.journal"), stray);
    EXPECT_THROW(write_archive_from_journal(dir.file("stray.journal"), dir.file("evidence.h5")),
                 Error);
    EXPECT_EQ(read_whole_file(dir.file("evidence.h5")), before);
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
        (void)entry;
        ++files;
    }
    EXPECT_EQ(files, 3U) << "the two journals and the archive: no temporary file stays";
}

}  // namespace
}  // namespace fhmoe::cluster
