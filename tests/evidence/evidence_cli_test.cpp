#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "evidence/evidence_generator.hpp"
#include "evidence/scratch_dir.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/evidence_diff.hpp"
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
    // Shape 2 is incomplete: heading, decision, table header, then one line per candidate.
    EXPECT_EQ(lines_of(run.out).size(), 3 + listed) << run.out;
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

}  // namespace
}  // namespace fhmoe::evidence::cli
