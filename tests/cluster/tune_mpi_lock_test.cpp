// A tuned CSV whose lock is held by a holder that is never broken automatically (here an
// unreadable lock file, as a tuner on another host could leave): the run measures and
// decides everything, journals it, writes nothing, and exits 3; once the lock is gone,
// --resume publishes the same decisions without measuring again. The same after the replays
// of --compare --update_improved.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

TEST(TuneMpiLock, AHeldLockCostsTheWriteNotTheMeasurementsAndResumePublishes) {
    const std::string dir = fresh_directory();
    const std::string lock = dir + "/tuned.csv.lock";
    std::ofstream(lock) << "1234\nsome-other-node\n";
    auto args = small_run_args(dir, "sim", 6, 3);
    args.insert(args.end(), {"--lock-timeout", "0.2"});

    const TunerExit held = run_tuner(dir, 2, args);
    EXPECT_EQ(held.exit_code, 3) << held.log;
    EXPECT_NE(held.log.find("not written"), std::string::npos) << held.log;
    EXPECT_FALSE(std::filesystem::exists(dir + "/tuned.csv"));
    const JournalFacts first = read_journal_facts(dir + "/journal.bin");
    expect_each_candidate_once(first);
    EXPECT_EQ(first.final_decisions.size(), first.header.shapes.size());

    std::filesystem::remove(lock);
    args.push_back("--resume");
    const TunerExit resumed = run_tuner(dir, 2, args);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
    EXPECT_EQ(tuned_choices(dir + "/tuned.csv").size(), first.header.shapes.size());
    // Nothing was measured again: the journal's terminal results are unchanged.
    EXPECT_EQ(read_journal_facts(dir + "/journal.bin").terminal_records, first.terminal_records);
}

// --compare --update_improved (the nightly retune) writes its rows once, after the replays:
// a held lock there is the same exit 3, nothing written, and --resume replays and writes.
TEST(TuneMpiLock, AHeldLockAfterTheReplaysIsAnInterruptionThatResumeFinishes) {
    const std::string dir = fresh_directory();
    const std::string lock = dir + "/tuned.csv.lock";
    std::ofstream(lock) << "1234\nsome-other-node\n";
    // A sample large enough for the sim backend's best challengers to beat the default configs.
    auto args = small_run_args(dir, "sim", 48, 3);
    args.insert(args.end(), {"--lock-timeout", "0.2", "--compare", "--update_improved"});

    const TunerExit held = run_tuner(dir, 2, args);
    EXPECT_EQ(held.exit_code, 3) << held.log;
    EXPECT_NE(held.log.find("tuned.csv not written"), std::string::npos) << held.log;
    EXPECT_FALSE(std::filesystem::exists(dir + "/tuned.csv"));

    std::filesystem::remove(lock);
    args.push_back("--resume");
    const TunerExit resumed = run_tuner(dir, 2, args);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
    EXPECT_NE(resumed.log.find("rows written to"), std::string::npos) << resumed.log;
    EXPECT_FALSE(tuned_choices(dir + "/tuned.csv").empty()) << resumed.log;
}

}  // namespace
}  // namespace fhmoe::cluster::testing
