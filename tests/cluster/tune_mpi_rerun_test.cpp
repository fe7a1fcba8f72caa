// aiter's habit of running the tuner again into the same outputs (`--compare
// --update_improved`, then `--all`): a finished run's journal is kept by name and the new run
// starts; an unfinished run's journal still blocks a new run (it is --resume's).

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kRanks = 2;
constexpr int kSample = 6;
constexpr std::uint64_t kSeed = 3;

// The files beside `journal` whose names start with its name and a dot: kept journals.
std::vector<std::string> kept_journals(const std::string& journal) {
    std::vector<std::string> kept;
    const std::string prefix = fs::path(journal).filename().string() + ".";
    for (const auto& entry : fs::directory_iterator(fs::path(journal).parent_path())) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(prefix)) kept.push_back(entry.path().string());
    }
    return kept;
}

TEST(TuneMpiRerun, ASecondRunIntoTheSameOutputsKeepsTheFinishedJournal) {
    const std::string dir = fresh_directory();
    const std::string journal = dir + "/journal.bin";
    auto compare_args = small_run_args(dir, "sim", kSample, kSeed);
    compare_args.insert(compare_args.end(), {"--compare", "--update_improved"});
    const TunerExit first = run_tuner(dir, kRanks, compare_args);
    ASSERT_EQ(first.exit_code, 0) << first.log;
    const std::string first_journal = read_file(journal);

    auto all_args = small_run_args(dir, "sim", kSample, kSeed);
    all_args.push_back("--all");
    const TunerExit second = run_tuner(dir, kRanks, all_args);
    ASSERT_EQ(second.exit_code, 0) << second.log;

    const std::vector<std::string> kept = kept_journals(journal);
    ASSERT_EQ(kept.size(), 1U);
    EXPECT_NE(
        second.log.find("the previous run there finished; its journal is kept as " + kept.front()),
        std::string::npos)
        << second.log;
    EXPECT_EQ(read_file(kept.front()), first_journal) << "the finished run's journal, whole";
    // The new journal is the second run's alone: one session, every shape decided once.
    const JournalFacts facts = read_journal_facts(journal);
    expect_each_candidate_once(facts);
    for (const auto& [shape, decisions] : facts.final_decisions) {
        EXPECT_EQ(decisions.size(), 1U) << shape;
    }
}

TEST(TuneMpiRerun, AKilledRunsJournalStillRefusesANewRunAndResumes) {
    const std::string dir = fresh_directory();
    const std::string journal = dir + "/journal.bin";
    const auto args = small_run_args(dir, "sim", kSample, kSeed);
    const TunerExit killed =
        run_tuner(dir, kRanks, args, {{"FHMOE_TEST_KILL_AFTER_JOURNAL_RECORDS", "5"}});
    ASSERT_NE(killed.exit_code, 0) << killed.log;
    const std::string killed_journal = read_file(journal);

    const TunerExit refused = run_tuner(dir, kRanks, args);
    EXPECT_EQ(refused.exit_code, 2) << refused.log;
    EXPECT_NE(refused.log.find("pass --resume to continue that run"), std::string::npos)
        << refused.log;
    EXPECT_EQ(read_file(journal), killed_journal) << "the unfinished journal is untouched";
    EXPECT_TRUE(kept_journals(journal).empty());

    auto resume_args = args;
    resume_args.push_back("--resume");
    const TunerExit resumed = run_tuner(dir, kRanks, resume_args);
    EXPECT_EQ(resumed.exit_code, 0) << resumed.log;
}

}  // namespace
}  // namespace fhmoe::cluster::testing
