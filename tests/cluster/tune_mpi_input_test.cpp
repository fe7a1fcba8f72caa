// fhmoe_tune_mpi refuses bad input with exit code 2 and touches no output.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "fhmoe/family/shape.hpp"

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

TEST(TuneMpiInput, MalformedUntunedCsvIsExitTwoAndWritesNothing) {
    const std::string dir = fresh_directory();
    std::ofstream(dir + "/bad.csv") << "token,model_dim\n3,abc\n";
    auto args = small_run_args(dir, "sim", 4, 1);
    args[1] = dir + "/bad.csv";
    const TunerExit exit = run_tuner(dir, 2, args);
    EXPECT_EQ(exit.exit_code, 2) << exit.log;
    EXPECT_NE(exit.log.find("bad.csv"), std::string::npos) << exit.log;
    EXPECT_FALSE(std::filesystem::exists(dir + "/tuned.csv"));
    EXPECT_FALSE(std::filesystem::exists(dir + "/journal.bin"));
}

TEST(TuneMpiInput, UpdateImprovedWithoutCompareIsAUsageError) {
    const std::string dir = fresh_directory();
    auto args = small_run_args(dir, "sim", 4, 1);
    args.push_back("--update_improved");
    const TunerExit exit = run_tuner(dir, 2, args);
    EXPECT_EQ(exit.exit_code, 2) << exit.log;
    EXPECT_NE(exit.log.find("--update_improved requires --compare"), std::string::npos);
}

TEST(TuneMpiInput, GpuBackendIsNotAvailableInThisBuild) {
    const std::string dir = fresh_directory();
    const TunerExit exit = run_tuner(dir, 1, small_run_args(dir, "gpu", 4, 1));
    EXPECT_EQ(exit.exit_code, 4) << exit.log;
    EXPECT_NE(exit.log.find("no GPU backend"), std::string::npos) << exit.log;
}

TEST(TuneMpiInput, ResumeOfAnotherRunIsRefusedNamingTheDifference) {
    const std::string dir = fresh_directory();
    ASSERT_EQ(run_tuner(dir, 1, small_run_args(dir, "sim", 4, 1)).exit_code, 0);
    const std::string tuned_before = read_file(dir + "/tuned.csv");
    const std::string journal_before = read_file(dir + "/journal.bin");
    auto args = small_run_args(dir, "sim", 4, 2);
    args.push_back("--resume");
    const TunerExit exit = run_tuner(dir, 2, args);
    EXPECT_EQ(exit.exit_code, 2) << exit.log;
    EXPECT_NE(exit.log.find("seed: journal '1', now '2'"), std::string::npos) << exit.log;
    EXPECT_EQ(read_file(dir + "/tuned.csv"), tuned_before);
    EXPECT_EQ(read_file(dir + "/journal.bin"), journal_before);
}

// A word-valued flag is named in the refusal as the CLI spells it, not as its /policy number.
TEST(TuneMpiInput, ResumeRefusalNamesTheSearchModeAsTyped) {
    const std::string dir = fresh_directory();
    ASSERT_EQ(run_tuner(dir, 1, small_run_args(dir, "sim", 4, 1)).exit_code, 0);
    const std::string journal_before = read_file(dir + "/journal.bin");
    auto args = small_run_args(dir, "sim", 4, 1);
    args.insert(args.end(), {"--search", "exhaustive", "--resume"});
    const TunerExit exit = run_tuner(dir, 1, args);
    EXPECT_EQ(exit.exit_code, 2) << exit.log;
    EXPECT_NE(exit.log.find("search: journal 'screen', now 'exhaustive'"), std::string::npos)
        << exit.log;
    EXPECT_EQ(read_file(dir + "/journal.bin"), journal_before);
}

// A journal is never overwritten: a finished run's is kept under another name and the new
// run starts (issue #15; an unfinished run's is still refused: tune_mpi_rerun_test.cpp).
TEST(TuneMpiInput, ANewRunNeverOverwritesAJournal) {
    const std::string dir = fresh_directory();
    ASSERT_EQ(run_tuner(dir, 1, small_run_args(dir, "sim", 4, 1)).exit_code, 0);
    const std::string journal_before = read_file(dir + "/journal.bin");
    const TunerExit exit = run_tuner(dir, 1, small_run_args(dir, "sim", 4, 1));
    EXPECT_EQ(exit.exit_code, 0) << exit.log;
    std::smatch kept;
    ASSERT_TRUE(std::regex_search(exit.log, kept, std::regex("its journal is kept as (\\S+)")))
        << exit.log;
    EXPECT_EQ(read_file(kept[1]), journal_before);
}

}  // namespace
}  // namespace fhmoe::cluster::testing

namespace fhmoe::cluster::testing {
namespace {

// Two ranks that build different reference data for the same shape (an MPMD launch: rank 0
// on the sim backend, rank 1 on the cpu backend) must not have their results compared: each
// shape both loaded is incomplete, names the ranks, and publishes nothing.
TEST(TuneMpiInput, ShapesWhoseReferenceDigestsDisagreeAreNotCompared) {
    const std::string dir = fresh_directory();
    const auto sim_args = small_run_args(dir, "sim", 8, 4);
    const auto cpu_args = small_run_args(dir, "cpu", 8, 4);
    TunerLaunch launch(dir, {{1, sim_args}, {1, cpu_args}});
    const TunerExit exit = launch.wait(std::chrono::seconds(180));
    ASSERT_EQ(exit.exit_code, 1) << exit.log;

    const auto contents = evidence::read_journal(dir + "/journal.bin");
    std::map<std::string, std::set<int>> loaded_by;
    std::map<std::string, evidence::ShapeDecision> decided;
    for (const auto& record : contents.records) {
        if (const auto* loaded = std::get_if<evidence::ShapeLoadedRecord>(&record)) {
            loaded_by[loaded->shape_key].insert(loaded->device.rank);
        } else if (const auto* decision = std::get_if<evidence::ShapeDecision>(&record)) {
            decided[decision->shape_key] = *decision;
        }
    }
    const auto rows = tuned_choices_if_any(dir + "/tuned.csv");
    std::size_t conflicts = 0;
    for (const auto& planned : contents.header.shapes) {
        const std::string shape = family::shape_key_string(planned.shape);
        if (loaded_by[shape].size() < 2) continue;
        ++conflicts;
        EXPECT_EQ(decided[shape].kind, evidence::DecisionKind::incomplete) << shape;
        EXPECT_NE(decided[shape].reason.find("reference digests disagree"), std::string::npos);
        EXPECT_NE(decided[shape].reason.find("rank 1 on"), std::string::npos);
        EXPECT_EQ(rows.count(std::to_string(family::padded_token(planned.shape.token)) + "/" +
                             std::string(family::to_aiter_string(planned.shape.gate_mode))),
                  0U)
            << shape;
    }
    EXPECT_GT(conflicts, 0U) << exit.log;
}

}  // namespace
}  // namespace fhmoe::cluster::testing
