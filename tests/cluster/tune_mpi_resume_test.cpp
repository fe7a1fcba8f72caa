// Interruptions: rank 0 killed with SIGKILL at several points of a run, and SIGTERM to every
// rank (Slurm preemption). `--resume` must then finish the job: the same decisions as an
// uninterrupted run, and every candidate measured exactly once across both launches.

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

constexpr int kRanks = 2;
constexpr int kSample = 12;
constexpr std::uint64_t kSeed = 5;

void expect_one_final_decision_per_shape(const JournalFacts& facts) {
    for (const auto& planned : facts.header.shapes) {
        const std::string shape = family::shape_key_string(planned.shape);
        const auto found = facts.final_decisions.find(shape);
        ASSERT_NE(found, facts.final_decisions.end()) << shape << " was never decided";
        EXPECT_EQ(found->second.size(), 1U) << shape << " was decided more than once";
    }
}

// The sim backend keeps a candidate's time independent of which worker life measured it, so
// an interrupted run must reach exactly the decisions of an uninterrupted one.
TEST(TuneMpiResume, KillOfRankZeroThenResumeMatchesAnUninterruptedRun) {
    const std::string base = fresh_directory();
    const std::string reference_dir = base + "/reference";
    std::filesystem::create_directories(reference_dir);
    ASSERT_EQ(run_tuner(reference_dir, kRanks, small_run_args(reference_dir, "sim", kSample, kSeed))
                  .exit_code,
              0);
    const auto reference = tuned_choices(reference_dir + "/tuned.csv");
    const std::size_t total = read_journal_facts(reference_dir + "/journal.bin").records;
    ASSERT_GT(total, 40U);

    for (std::size_t kill_at : {std::size_t{2}, total / 4, total / 2, total * 9 / 10}) {
        SCOPED_TRACE("killed after " + std::to_string(kill_at) + " of " + std::to_string(total) +
                     " records");
        const std::string dir = base + "/kill" + std::to_string(kill_at);
        std::filesystem::create_directories(dir);
        const auto args = small_run_args(dir, "sim", kSample, kSeed);
        const TunerExit killed =
            run_tuner(dir, kRanks, args,
                      {{"FHMOE_TEST_KILL_AFTER_JOURNAL_RECORDS", std::to_string(kill_at)}});
        ASSERT_NE(killed.exit_code, 0) << killed.log;
        ASSERT_NE(killed.log.find("test hook: SIGKILL"), std::string::npos) << killed.log;

        auto resume_args = args;
        resume_args.push_back("--resume");
        const TunerExit resumed = run_tuner(dir, kRanks, resume_args);
        ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
        EXPECT_EQ(tuned_choices(dir + "/tuned.csv"), reference);
        const JournalFacts facts = read_journal_facts(dir + "/journal.bin");
        expect_each_candidate_once(facts);
        expect_one_final_decision_per_shape(facts);
    }
}

TEST(TuneMpiResume, SigtermStopsWithinTheGracePeriodAndResumeCompletes) {
    const std::string dir = fresh_directory();
    auto args = small_run_args(dir, "cpu", 6, 3);
    args.insert(args.end(), {"--stop-grace", "3"});
    TunerLaunch launch(dir, kRanks, args);
    ASSERT_TRUE(wait_for_journal_records(dir + "/journal.bin", 10, std::chrono::seconds(90)));
    const auto signalled = std::chrono::steady_clock::now();
    launch.signal_ranks(SIGTERM);
    const TunerExit stopped = launch.wait(std::chrono::seconds(150));
    const double stop_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
    ASSERT_EQ(stopped.exit_code, 3) << stopped.log;
    // Grace (3 s) for the candidate in flight, 5 s for the last reports, a little for exit.
    EXPECT_LT(stop_seconds, 12.0) << stopped.log;
    EXPECT_NE(stopped.log.find("--resume"), std::string::npos);

    auto resume_args = args;
    resume_args.push_back("--resume");
    const TunerExit resumed = run_tuner(dir, kRanks, resume_args);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
    const JournalFacts facts = read_journal_facts(dir + "/journal.bin");
    expect_each_candidate_once(facts);
    expect_one_final_decision_per_shape(facts);
    EXPECT_EQ(tuned_choices(dir + "/tuned.csv").size(), 5U);
}

}  // namespace
}  // namespace fhmoe::cluster::testing
