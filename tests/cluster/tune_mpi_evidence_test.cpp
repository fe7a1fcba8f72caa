// The evidence of real 4-rank cpu runs (issue #7): the archive's row counts agree with the
// summary the tuner wrote itself (--summary-json), read back with the project's reader and
// with h5py; the archive that `fhmoe_evidence rebuild` makes from the journal alone equals the
// archive written at the end; and the journal of a run killed with SIGKILL rebuilds into a
// valid partial archive, whose run then resumes to an archive that again equals its rebuild.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "evidence/evidence_compare.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/family/shape.hpp"
#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

constexpr int kRanks = 4;
constexpr int kSample = 4;
constexpr std::uint64_t kSeed = 11;

struct CommandResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr
};

// Runs a real program (the evidence CLI, the system python) and collects what it printed.
CommandResult run_command(const std::vector<std::string>& argv) {
    std::string command;
    for (const auto& arg : argv) {
        std::string quoted = "'";
        for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        command += quoted + "' ";
    }
    command += "2>&1";
    CommandResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

// What the tuner's --summary-json says, as far as the row counts go (layout in
// run_summary_json.hpp), read with nlohmann-json.
struct RunSummary {
    int exit_code = -1;
    std::size_t ranks = 0;
    std::size_t policy_values = 0;
    std::size_t shapes = 0;
    std::size_t candidates = 0;
    std::size_t race_samples = 0;
    std::size_t decisions = 0;
    std::map<std::string, std::map<std::string, std::size_t>> counts;  // shape -> status -> n
};

RunSummary read_run_summary(const std::string& path) {
    RunSummary summary;
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(read_file(path));
    } catch (const nlohmann::json::exception& error) {
        ADD_FAILURE() << path << ": " << error.what();
        return summary;
    }
    summary.exit_code = json.at("exit_code").get<int>();
    summary.ranks = json.at("ranks").get<std::size_t>();
    summary.policy_values = json.at("policy").size();
    // A switch is a boolean, not 1/0 (the issue found rotate_inputs written as 1).
    EXPECT_TRUE(json.at("policy").at("rotate_inputs").is_boolean()) << json.at("policy");
    EXPECT_TRUE(json.at("policy").at("iters").is_number()) << json.at("policy");
    for (const auto& shape : json.at("shapes")) {
        const std::string decision = shape.at("decision").get<std::string>();
        if (decision == "already tuned" || decision == "other device") continue;
        ++summary.shapes;
        if (decision == "promote" || decision == "retain" || decision == "incomplete" ||
            decision == "all_failed") {
            ++summary.decisions;
        }
        // One vocabulary: the published candidate is the best challenger or the incumbent.
        const std::string published = shape.at("published").get<std::string>();
        if (decision == "promote") {
            EXPECT_EQ(published, shape.at("best_challenger").get<std::string>()) << shape;
        }
        if (decision == "retain") {
            EXPECT_EQ(published, shape.at("incumbent").get<std::string>()) << shape;
        }
        summary.race_samples += shape.at("race_samples").get<std::size_t>();
        for (const auto& [status, n] : shape.at("candidates").items()) {
            summary.counts[shape.at("shape").get<std::string>()][status] = n.get<std::size_t>();
            summary.candidates += n.get<std::size_t>();
        }
    }
    return summary;
}

// The archive read back by the project's reader has as many rows in every table as the
// tuner's own summary accounts for, and per shape the same status counts.
void expect_rows_match_summary(const evidence::RunEvidence& archive, const RunSummary& summary) {
    EXPECT_EQ(archive.shapes.size(), summary.shapes);
    EXPECT_EQ(archive.candidates.size(), summary.candidates);
    EXPECT_EQ(archive.race.size(), summary.race_samples);
    EXPECT_EQ(archive.decisions.size(), summary.decisions);
    EXPECT_EQ(archive.provenance.ranks.size(), summary.ranks);
    EXPECT_EQ(archive.provenance.policy.size(), summary.policy_values);
    EXPECT_EQ(archive.provenance.exit_status, summary.exit_code);
    std::map<std::string, std::map<std::string, std::size_t>> archived;
    for (const auto& row : archive.candidates) {
        ++archived[row.result.shape_key][std::string(tuning::to_string(row.result.status))];
    }
    EXPECT_EQ(archived, summary.counts);
}

void expect_h5py_agrees(const std::string& archive, const std::string& summary_json) {
    const CommandResult h5py = run_command({FHMOE_SYSTEM_PYTHON, FHMOE_H5PY_CHECK, "--archive",
                                            archive, "--summary-json", summary_json});
    EXPECT_EQ(h5py.exit_code, 0) << h5py.output;
    EXPECT_NE(h5py.output.find("0 failures"), std::string::npos) << h5py.output;
}

// `fhmoe_evidence rebuild` of the journal, read back and compared field by field.
void expect_rebuild_equals(const std::string& journal, const std::string& final_archive,
                           const std::string& rebuilt) {
    const CommandResult rebuild =
        run_command({FHMOE_EVIDENCE_TOOL, "rebuild", journal, "--out", rebuilt});
    ASSERT_EQ(rebuild.exit_code, 0) << rebuild.output;
    const auto differences = evidence::evidence_differences(evidence::read_archive(final_archive),
                                                            evidence::read_archive(rebuilt));
    std::string listed;
    for (const auto& difference : differences) listed += "\n  " + difference;
    EXPECT_TRUE(differences.empty()) << "the rebuild differs from the final archive:" << listed;
}

std::vector<std::string> evidence_run_args(const std::string& dir) {
    auto args = small_run_args(dir, "cpu", kSample, kSeed);
    args.insert(args.end(), {"--evidence", dir + "/evidence.h5"});
    return args;
}

// cpu ranks on one host share its cores, so a race must have had the host to itself (the
// quiet-device rule, race_quiet_rule.hpp): no candidate measured on the race's host may
// overlap the span in which the racing rank held the race. All ranks share one clock here.
void expect_races_ran_alone(const evidence::RunEvidence& archive) {
    std::size_t races = 0;
    for (const auto& decision : archive.decisions) {
        if (decision.race_rank < 0) continue;
        ++races;
        EXPECT_LT(decision.race_rank, kRanks);
        EXPECT_FALSE(decision.race_host.empty());
        EXPECT_GT(decision.race_started_unix_ns, 0);
        EXPECT_GE(decision.race_finished_unix_ns, decision.race_started_unix_ns);
        for (const auto& candidate : archive.candidates) {
            const auto& result = candidate.result;
            if (result.where.host != decision.race_host || result.started_unix_ns == 0) continue;
            const bool overlaps = result.started_unix_ns < decision.race_finished_unix_ns &&
                                  result.finished_unix_ns > decision.race_started_unix_ns;
            EXPECT_FALSE(overlaps)
                << "candidate " << result.candidate.key() << " of shape " << candidate.shape_id
                << " ran on rank " << result.where.rank << " during the race of shape "
                << decision.shape_id << " on rank " << decision.race_rank;
        }
    }
    EXPECT_GT(races, 0U) << "no decision names its race: the rule goes unchecked";
}

TEST(TuneMpiEvidence, ArchiveOfAFourRankRunAgreesWithItsSummaryAndWithItsJournal) {
    const std::string dir = fresh_directory();
    auto args = evidence_run_args(dir);
    args.insert(args.end(), {"--summary-json", dir + "/summary.json"});
    const TunerExit exit = run_tuner(dir, kRanks, args);
    ASSERT_EQ(exit.exit_code, 0) << exit.log;
    std::printf("4-rank cpu run: %.1f s\n", exit.seconds);

    const RunSummary summary = read_run_summary(dir + "/summary.json");
    ASSERT_EQ(summary.shapes, 5U);
    EXPECT_EQ(summary.ranks, 4U);
    EXPECT_GT(summary.race_samples, 0U) << "no shape raced: the race table goes unchecked";
    const evidence::RunEvidence archive = evidence::read_archive(dir + "/evidence.h5");
    expect_rows_match_summary(archive, summary);
    EXPECT_TRUE(archive.provenance.complete);
    for (const auto& rank : archive.provenance.ranks) {
        EXPECT_FALSE(rank.host.empty()) << "rank " << rank.rank << " has no host";
    }
    expect_h5py_agrees(dir + "/evidence.h5", dir + "/summary.json");
    expect_races_ran_alone(archive);

    expect_rebuild_equals(dir + "/journal.bin", dir + "/evidence.h5", dir + "/rebuilt.h5");
}

// The shapes of a journal with at least one decision record (each run decides a shape once).
std::set<std::string> shapes_with_a_decision(const evidence::JournalContents& journal) {
    std::set<std::string> decided;
    for (const auto& record : journal.records) {
        if (const auto* d = std::get_if<evidence::ShapeDecision>(&record))
            decided.insert(d->shape_key);
    }
    return decided;
}

std::size_t candidates_measured(const JournalFacts& facts) {
    std::size_t measured = 0;
    for (const auto& [shape, candidates] : facts.terminal_records) measured += candidates.size();
    return measured;
}

std::size_t rows_not_run(const evidence::RunEvidence& archive) {
    std::size_t n = 0;
    for (const auto& row : archive.candidates) n += row.result.status == tuning::Status::not_run;
    return n;
}

TEST(TuneMpiEvidence, JournalOfAKilledRunRebuildsIntoAValidPartialArchive) {
    const std::string dir = fresh_directory();
    const auto args = evidence_run_args(dir);
    // Well into the run (past the planning records and the first shapes' results), well
    // before its end: the small run journals about 60 records.
    const TunerExit killed =
        run_tuner(dir, kRanks, args, {{"FHMOE_TEST_KILL_AFTER_JOURNAL_RECORDS", "25"}});
    ASSERT_NE(killed.exit_code, 0) << killed.log;
    ASSERT_NE(killed.log.find("test hook: SIGKILL"), std::string::npos) << killed.log;
    // No checkpoint came before the kill (--batch 100): only the journal holds the evidence.
    ASSERT_FALSE(std::filesystem::exists(dir + "/evidence.h5"));

    const std::string partial = dir + "/partial.h5";
    const CommandResult rebuild =
        run_command({FHMOE_EVIDENCE_TOOL, "rebuild", dir + "/journal.bin", "--out", partial});
    ASSERT_EQ(rebuild.exit_code, 0) << rebuild.output;
    EXPECT_NE(rebuild.output.find("the run did not finish"), std::string::npos) << rebuild.output;

    const evidence::JournalContents journal = evidence::read_journal(dir + "/journal.bin");
    const JournalFacts facts = read_journal_facts(dir + "/journal.bin");
    const evidence::RunEvidence archive = evidence::read_archive(partial);
    EXPECT_FALSE(archive.provenance.complete);
    EXPECT_EQ(archive.provenance.exit_status, -1);
    EXPECT_EQ(archive.provenance.finished_unix, 0);
    EXPECT_EQ(archive.provenance.backend, "cpu");
    EXPECT_EQ(archive.provenance.seed, kSeed);
    EXPECT_EQ(archive.provenance.ranks.size(), static_cast<std::size_t>(kRanks));
    EXPECT_EQ(archive.provenance.command_line.back(), dir + "/evidence.h5");
    // Every planned candidate has a row; exactly those the journal holds a terminal result
    // for are measured, the others are not_run; each decision journaled is there.
    std::size_t planned = 0;
    for (const auto& shape : journal.header.shapes) planned += shape.candidates.size();
    EXPECT_EQ(archive.shapes.size(), journal.header.shapes.size());
    ASSERT_EQ(archive.candidates.size(), planned);
    const std::size_t measured = candidates_measured(facts);
    EXPECT_GT(measured, 0U);
    EXPECT_EQ(archive.candidates.size() - rows_not_run(archive), measured);
    EXPECT_GT(rows_not_run(archive), 0U) << "the kill came too late to leave a partial run";
    EXPECT_EQ(archive.decisions.size(), shapes_with_a_decision(journal).size());
    const CommandResult summary = run_command({FHMOE_EVIDENCE_TOOL, "summary", partial});
    EXPECT_EQ(summary.exit_code, 0) << summary.output;

    // A kill inside a write leaves a torn last record: the rebuild says so and keeps the rest.
    const std::string torn = dir + "/torn.bin";
    std::filesystem::copy_file(dir + "/journal.bin", torn);
    std::filesystem::resize_file(torn, std::filesystem::file_size(torn) - 5);
    const CommandResult torn_rebuild =
        run_command({FHMOE_EVIDENCE_TOOL, "rebuild", torn, "--out", dir + "/torn.h5"});
    ASSERT_EQ(torn_rebuild.exit_code, 0) << torn_rebuild.output;
    EXPECT_NE(torn_rebuild.output.find("ignoring a torn last record"), std::string::npos)
        << torn_rebuild.output;
    EXPECT_EQ(evidence::read_archive(dir + "/torn.h5").candidates.size(), planned);

    // The resumed run's archive (two sessions folded) agrees with the summary of the resumed
    // rank 0, which rebuilt its state from the journal its own way, and with a rebuild.
    auto resume_args = args;
    resume_args.insert(resume_args.end(), {"--resume", "--summary-json", dir + "/summary.json"});
    const TunerExit resumed = run_tuner(dir, kRanks, resume_args);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
    const evidence::RunEvidence final_archive = evidence::read_archive(dir + "/evidence.h5");
    expect_rows_match_summary(final_archive, read_run_summary(dir + "/summary.json"));
    EXPECT_EQ(rows_not_run(final_archive), 0U);
    EXPECT_TRUE(final_archive.provenance.complete);
    EXPECT_EQ(final_archive.provenance.command_line.back(), dir + "/summary.json");
    expect_h5py_agrees(dir + "/evidence.h5", dir + "/summary.json");
    expect_rebuild_equals(dir + "/journal.bin", dir + "/evidence.h5", dir + "/rebuilt.h5");
    expect_each_candidate_once(read_journal_facts(dir + "/journal.bin"));
}

}  // namespace
}  // namespace fhmoe::cluster::testing
