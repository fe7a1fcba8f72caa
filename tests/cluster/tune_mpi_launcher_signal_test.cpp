// SIGTERM to mpirun itself, as a batch system or a user's Ctrl-C delivers it (issue #12,
// item 5). Open MPI forwards the signal to the ranks and SIGKILLs them about a second later,
// long before a candidate in flight can finish its grace: the journal must already be
// flushed and marked interrupted by then, and `--resume` must finish the job, removing the
// archive temporaries that the killed run left (only its own, and only a dead writer's).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

constexpr int kRanks = 2;

// A pid that certainly belonged to a process that has exited.
pid_t pid_of_an_exited_process() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return child;
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

TEST(TuneMpiLauncherSignal, SigtermToMpirunLeavesAJournalMarkedInterruptedAndResumeFinishes) {
    const std::string dir = fresh_directory();
    auto args = small_run_args(dir, "cpu", 6, 3);
    // A generous grace and a timeout far beyond it: the run cannot finish its orderly stop
    // before mpirun's SIGKILL, so only the checkpoint taken at the signal can save it.
    args.insert(args.end(),
                {"--evidence", dir + "/evidence.h5", "--timeout", "60", "--stop-grace", "30"});
    auto first_args = args;
    // Every chunk's third candidate hangs: both ranks are certainly busy at the signal.
    first_args.insert(first_args.end(), {"--inject-fault", "hang@2"});
    TunerLaunch launch(dir, kRanks, first_args);
    // Header, session, two ranks joined, two shapes loaded, a result or more from each rank.
    ASSERT_TRUE(wait_for_journal_records(dir + "/journal.bin", 8, std::chrono::seconds(90)));
    const auto signalled = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(launch.pid(), SIGTERM), 0);
    const TunerExit stopped = launch.wait(std::chrono::seconds(60));
    const double stop_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
    // mpirun's own status for a job it was told to terminate (Open MPI 4.1): 1. The tuner's
    // word is in the journal.
    EXPECT_EQ(stopped.exit_code, 1) << stopped.log;
    EXPECT_LT(stop_seconds, 15.0) << stopped.log;
    const auto contents = evidence::read_journal(dir + "/journal.bin");
    EXPECT_EQ(contents.torn_tail_bytes, 0U);
    ASSERT_FALSE(contents.records.empty());
    const auto* ended = std::get_if<evidence::SessionEndedRecord>(&contents.records.back());
    ASSERT_NE(ended, nullptr) << "the journal does not say the session was interrupted";
    EXPECT_EQ(ended->exit_status, 3);

    // What a killed archive write leaves, beside what must survive: a live writer's
    // temporary (this test's pid) and another archive's temporary of a dead pid.
    const pid_t dead = pid_of_an_exited_process();
    const std::string leftover = dir + "/evidence.h5.tmp." + std::to_string(dead);
    const std::string live = dir + "/evidence.h5.tmp." + std::to_string(::getpid());
    const std::string other = dir + "/other.h5.tmp." + std::to_string(dead);
    write_text(leftover, "half an archive");
    write_text(live, "being written");
    write_text(other, "someone else's");

    args.push_back("--resume");
    const TunerExit resumed = run_tuner(dir, kRanks, args);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
    expect_each_candidate_once(read_journal_facts(dir + "/journal.bin"));
    EXPECT_FALSE(std::filesystem::exists(leftover)) << resumed.log;
    EXPECT_EQ(read_file(live), "being written");
    EXPECT_EQ(read_file(other), "someone else's");
    EXPECT_TRUE(std::filesystem::exists(dir + "/evidence.h5"));
}

}  // namespace
}  // namespace fhmoe::cluster::testing
