#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "evidence/evidence_generator.hpp"
#include "evidence/scratch_dir.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/evidence_diff.hpp"
#include "fhmoe/version.hpp"
#include "fhmoe_evidence/evidence_cli.hpp"

namespace fhmoe::evidence::cli {
namespace {

using testing::generate_evidence;
using testing::GeneratorOptions;
using testing::ScratchDir;

struct CliRun {
    int exit_code = -1;
    std::string out;
    std::string err;
};

CliRun run_cli(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    CliRun run;
    run.exit_code = run_evidence_cli(args, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

class EvidenceCli : public ::testing::Test {
protected:
    void SetUp() override {
        night_ = generate_evidence(GeneratorOptions{.seed = 51, .shapes = 12});
        write_archive(last_night_, night_);
    }
    ScratchDir scratch_;
    RunEvidence night_;
    const std::string last_night_ = scratch_.file("last_night.h5");
    const std::string tonight_ = scratch_.file("tonight.h5");
};

TEST_F(EvidenceCli, SummaryHasOneLinePerShapeAndTheTotals) {
    const CliRun run = run_cli({"summary", last_night_});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    for (const ShapeRecord& shape : night_.shapes) {
        EXPECT_NE(run.out.find(shape.shape_key + " "), std::string::npos) << shape.shape_key;
    }
    EXPECT_NE(run.out.find(std::to_string(night_.candidates.size()) + " candidates: ok "),
              std::string::npos)
        << run.out;
    EXPECT_NE(run.out.find("12 shapes: promote 3 retain 3 incomplete 2 all_failed 2 pending 2"),
              std::string::npos)
        << run.out;
}

const DecisionRecord& first_decision(const RunEvidence& run, Decision kind) {
    for (const DecisionRecord& decision : run.decisions) {
        if (decision.decision == kind && !decision.best_challenger_key.empty() &&
            !decision.incumbent_key.empty()) {
            return decision;
        }
    }
    throw std::logic_error("the generator made no such decision");
}

// The line of `text` that holds `needle`; empty when none does.
std::string line_with(const std::string& text, const std::string& needle) {
    for (const std::string& line : lines_of(text)) {
        if (line.find(needle) != std::string::npos) return line;
    }
    return {};
}

// Whether the table row `line` has the cell `cell` followed by the cells `next` (cells are
// separated by runs of spaces).
bool next_cells_are(const std::string& line, const std::string& cell,
                    const std::vector<std::string>& next) {
    std::istringstream in(line);
    std::vector<std::string> cells;
    for (std::string word; in >> word;) cells.push_back(word);
    for (std::size_t i = 0; i + next.size() < cells.size(); ++i) {
        if (cells[i] != cell) continue;
        if (std::equal(next.begin(), next.end(), cells.begin() + static_cast<long>(i) + 1)) {
            return true;
        }
    }
    return false;
}

// One vocabulary (docs/evidence-schema.md): the published candidate is the incumbent when
// retained and the best challenger when promoted; "winner" is not a word of any output.
TEST_F(EvidenceCli, SummarySaysWhichOneIsPublished) {
    const CliRun run = run_cli({"summary", last_night_});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out.find("winner"), std::string::npos) << run.out;
    const std::string header = lines_of(run.out).at(3);
    for (const char* column :
         {"incumbent_us", "best_challenger_us", "published", "incumbent", "best_challenger"}) {
        EXPECT_NE(header.find(std::string(" ") + column), std::string::npos) << header;
    }
    const DecisionRecord& promoted = first_decision(night_, Decision::promote);
    const DecisionRecord& retained = first_decision(night_, Decision::retain);
    const std::string promoted_line =
        line_with(run.out, night_.shapes.at(promoted.shape_id).shape_key + " ");
    const std::string retained_line =
        line_with(run.out, night_.shapes.at(retained.shape_id).shape_key + " ");
    // published names the role; the incumbent's key comes next, then the best challenger's.
    EXPECT_TRUE(next_cells_are(promoted_line, "best_challenger",
                               {promoted.incumbent_key, promoted.best_challenger_key}))
        << promoted_line;
    EXPECT_TRUE(next_cells_are(retained_line, "incumbent",
                               {retained.incumbent_key, retained.best_challenger_key}))
        << retained_line;
}

TEST_F(EvidenceCli, ShowSaysWhichTimesAreTheRaceAndWhichTheScreening) {
    const DecisionRecord& retained = first_decision(night_, Decision::retain);
    const CliRun run =
        run_cli({"show", last_night_, "--shape", night_.shapes.at(retained.shape_id).shape_key});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out.find("winner"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("  published       " + retained.incumbent_key + " (the incumbent)\n"),
              std::string::npos)
        << run.out;
    const std::string incumbent = line_with(run.out, "  incumbent       ");
    const std::string challenger = line_with(run.out, "  best_challenger ");
    EXPECT_NE(incumbent.find(retained.incumbent_key), std::string::npos) << run.out;
    EXPECT_NE(incumbent.find("(race mean over rounds)"), std::string::npos) << incumbent;
    EXPECT_NE(challenger.find(retained.best_challenger_key), std::string::npos) << run.out;
    EXPECT_NE(challenger.find("(race mean over rounds)"), std::string::npos) << challenger;
    EXPECT_NE(run.out.find("candidates (screening: each one's own chunk measurement, not the "
                           "race):\n"),
              std::string::npos)
        << run.out;
}

TEST_F(EvidenceCli, ShowSaysWhereAndHowLongTheDecidingRaceRan) {
    RunEvidence night = night_;
    ASSERT_FALSE(night.decisions.empty());
    DecisionRecord& decision = night.decisions.front();
    decision.race_rank = 2;
    decision.race_host = "node9";
    decision.race_started_unix_ns = 1'700'000'000'000'000'000;
    decision.race_finished_unix_ns = 1'700'000'001'500'000'000;
    write_archive(tonight_, night);
    const std::string& shape = night.shapes.at(decision.shape_id).shape_key;
    const CliRun run = run_cli({"show", tonight_, "--shape", shape});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("  race on rank 2 (node9), 1.500 s\n"), std::string::npos) << run.out;
}

TEST_F(EvidenceCli, ShowListsEveryCandidateOfTheShape) {
    const ShapeRecord& shape = night_.shapes[2];
    const CliRun run = run_cli({"show", last_night_, "--shape", shape.shape_key});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::size_t listed = 0;
    for (const CandidateRecord& candidate : night_.candidates) {
        if (candidate.shape_id != 2) continue;
        ++listed;
        EXPECT_NE(run.out.find(candidate.result.candidate.key() + " "), std::string::npos);
    }
    // Shape 2 is incomplete: heading, decision, "published -", the candidates' heading, the
    // table header, then one line per candidate.
    EXPECT_EQ(lines_of(run.out).size(), 5 + listed) << run.out;
}

TEST_F(EvidenceCli, ShowOfAnUnknownShapeIsBadInput) {
    const CliRun run = run_cli({"show", last_night_, "--shape", "t0_nothing"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("no shape 't0_nothing'"), std::string::npos) << run.err;
}

TEST_F(EvidenceCli, DiffOfAnArchiveWithItselfReportsNothing) {
    const CliRun run = run_cli({"diff", last_night_, last_night_});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out, "no changes\n");
}

TEST_F(EvidenceCli, DiffReportsExactlyThePlantedChange) {
    RunEvidence tonight = night_;
    CandidateRecord* planted = nullptr;
    for (CandidateRecord& candidate : tonight.candidates) {
        if (candidate.result.status == tuning::Status::ok && candidate.shape_id == 4) {
            planted = &candidate;
        }
    }
    ASSERT_NE(planted, nullptr);
    planted->result.status = tuning::Status::crash;
    planted->result.detail = "worker killed by signal 11 (SIGSEGV)";
    write_archive(tonight_, tonight);

    const CliRun run = run_cli({"diff", last_night_, tonight_});
    EXPECT_EQ(run.exit_code, 1) << run.err;
    const std::vector<std::string> lines = lines_of(run.out);
    ASSERT_EQ(lines.size(), 4u) << run.out;  // header, the change, blank, count
    EXPECT_EQ(lines[1].rfind("new_failure", 0), 0u) << lines[1];
    EXPECT_NE(lines[1].find(shape_identity(tonight.shapes[4])), std::string::npos);
    EXPECT_NE(lines[1].find(planted->result.candidate.key()), std::string::npos);
    EXPECT_NE(lines[1].find(" ok "), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find(" crash "), std::string::npos) << lines[1];
    EXPECT_EQ(lines[3], "1 change");
}

TEST_F(EvidenceCli, ExportWritesOneCsvPerTable) {
    const CliRun run = run_cli({"export", last_night_, "--csv", scratch_.file("csv")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(lines_of(run.out).size(), 7u);
    for (const std::string& path : lines_of(run.out)) {
        EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
    }
}

TEST_F(EvidenceCli, BadInputExitsTwoWithAClearMessage) {
    const std::string missing = scratch_.file("missing.h5");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{}, "no command given"},
        {{"frobnicate"}, "unknown command 'frobnicate'"},
        {{"summary"}, "summary: missing file"},
        {{"summary", missing}, missing},
        {{"summary", last_night_, "extra"}, "unexpected argument 'extra'"},
        {{"show", last_night_}, "missing --shape"},
        {{"diff", last_night_}, "diff: missing new"},
        {{"diff", last_night_, missing}, missing},
        {{"diff", last_night_, last_night_, "--min-pct", "x"}, "min-pct"},
        {{"export", last_night_}, "missing --csv"},
        {{"summary", last_night_, "--bogus"}, "bogus"},
    };
    for (const auto& [args, expected] : cases) {
        const CliRun run = run_cli(args);
        EXPECT_EQ(run.exit_code, 2) << expected;
        EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
        EXPECT_EQ(run.out, "");
    }
}

// Every command answers --help with its own usage line and flags (exit 0, nothing read),
// also when its arguments are missing; `help COMMAND` says the same.
TEST_F(EvidenceCli, EveryCommandHasItsOwnHelp) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
        {"summary", {"fhmoe_evidence summary FILE"}},
        {"show", {"fhmoe_evidence show FILE --shape KEY", "--shape"}},
        {"diff", {"fhmoe_evidence diff OLD NEW", "--min-pct", "--sigmas"}},
        {"export", {"fhmoe_evidence export FILE --csv DIR", "--csv"}},
        {"rebuild", {"fhmoe_evidence rebuild JOURNAL --out FILE", "--out"}},
    };
    for (const auto& [command, expected] : commands) {
        SCOPED_TRACE(command);
        const CliRun run = run_cli({command, "--help"});
        EXPECT_EQ(run.exit_code, 0) << run.err;
        EXPECT_EQ(run.err, "");
        for (const std::string& text : expected) {
            EXPECT_NE(run.out.find(text), std::string::npos) << run.out;
        }
        for (const auto& [other, other_expected] : commands) {
            if (other != command) {
                EXPECT_EQ(run.out.find(other_expected.front()), std::string::npos) << run.out;
            }
        }
        EXPECT_EQ(run_cli({"help", command}).out, run.out);
        EXPECT_EQ(run_cli({command, last_night_, "-h"}).out, run.out) << "-h after arguments";
    }
    EXPECT_NE(run_cli({"--help"}).out.find("fhmoe_evidence <command> --help"), std::string::npos);
}

TEST_F(EvidenceCli, VersionNamesTheProgramAndTheBuild) {
    const CliRun run = run_cli({"--version"});
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_EQ(run.out, version_line("fhmoe_evidence") + "\n");
    EXPECT_EQ(run.out.rfind("fhmoe_evidence " + std::string(version()) + " (gpu backend ", 0), 0u)
        << run.out;
}

}  // namespace
}  // namespace fhmoe::evidence::cli
