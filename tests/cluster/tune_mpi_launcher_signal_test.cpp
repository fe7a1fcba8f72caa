// Signals to mpirun itself, as a batch system or a user's Ctrl-C delivers them (issue #12,
// item 5). Open MPI 4.1's mpirun answers SIGTERM by sending the ranks SIGCONT at once,
// SIGTERM a second later and SIGKILL a second after that, and exits 1 whatever the ranks
// say: the journal must be marked interrupted in that second, and `--resume` must finish the
// job with the tuned CSV of an uninterrupted run, removing the archive temporaries that the
// killed run left (only its own, and only a dead writer's). SIGUSR1, which mpirun passes on
// at once and leaves at that, is the orderly stop: the ranks finish it and mpirun exits 3.
// The sim backend: its times depend only on the seed and the candidate, so an interrupted
// and resumed run must write exactly the uninterrupted run's CSV.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <variant>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRanks = 2;
constexpr int kSample = 6;
constexpr std::uint64_t kSeed = 3;

std::vector<std::string> run_args(const std::string& dir, const std::string& stop_grace) {
    auto args = small_run_args(dir, "sim", kSample, kSeed);
    // A timeout far beyond the test: a candidate that hangs is still in flight at the signal.
    args.insert(args.end(), {"--evidence", dir + "/evidence.h5", "--timeout", "60", "--stop-grace",
                             stop_grace});
    return args;
}

// Every shape's third candidate hangs in its chunk: both ranks are certainly busy when the
// signal comes, and the results before it are journaled.
std::vector<std::string> hanging(std::vector<std::string> args) {
    args.insert(args.end(), {"--inject-fault", "hang@2"});
    return args;
}

bool has_session_ended(const std::string& journal) {
    for (const auto& record : evidence::read_journal(journal).records) {
        if (std::holds_alternative<evidence::SessionEndedRecord>(record)) return true;
    }
    return false;
}

// Seconds from `since` until the journal holds a session_ended record; nullopt when it does
// not within `limit`. Bounded polling of a file another process writes.
std::optional<double> seconds_until_marked(const std::string& journal, Clock::time_point since,
                                           std::chrono::milliseconds limit) {
    while (Clock::now() - since < limit) {
        if (has_session_ended(journal)) {
            return std::chrono::duration<double>(Clock::now() - since).count();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return std::nullopt;
}

int last_session_exit(const std::string& journal) {
    const auto contents = evidence::read_journal(journal);
    EXPECT_EQ(contents.torn_tail_bytes, 0U);
    if (contents.records.empty()) return -1;
    const auto* ended = std::get_if<evidence::SessionEndedRecord>(&contents.records.back());
    return ended != nullptr ? ended->exit_status : -1;
}

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

// The same run, never interrupted: made once, by the first test that asks, in a directory
// beside that test's. Returns that directory.
const std::string& uninterrupted_run(const std::string& beside) {
    static std::optional<std::string> run;
    if (!run) {
        const std::string dir =
            (std::filesystem::path(beside).parent_path() / "TuneMpiLauncherSignal.uninterrupted")
                .string();
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        const TunerExit finished = run_tuner(dir, kRanks, run_args(dir, "30"));
        EXPECT_EQ(finished.exit_code, 0) << finished.log;
        run = dir;
    }
    return *run;
}

std::string uninterrupted_csv(const std::string& beside) {
    return read_file(uninterrupted_run(beside) + "/tuned.csv");
}

// Resumes the run in `dir` (no fault) and checks that it ends as the uninterrupted run did.
void resume_and_expect_the_uninterrupted_csv(const std::string& dir) {
    const std::string expected = uninterrupted_csv(dir);
    ASSERT_FALSE(expected.empty());
    auto args = run_args(dir, "30");
    args.push_back("--resume");
    const TunerExit resumed = run_tuner(dir, kRanks, args);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
    expect_each_candidate_once(read_journal_facts(dir + "/journal.bin"));
    EXPECT_EQ(read_file(dir + "/tuned.csv"), expected) << resumed.log;
    EXPECT_TRUE(std::filesystem::exists(dir + "/evidence.h5"));
}

TEST(TuneMpiLauncherSignal, SigtermToMpirunLeavesAJournalMarkedInterruptedAndResumeFinishes) {
    const std::string dir = fresh_directory();
    // A grace far longer than mpirun waits before its SIGKILL: only the checkpoint taken at
    // the signal can save the session.
    TunerLaunch launch(dir, kRanks, hanging(run_args(dir, "30")));
    // Header, session, two ranks joined, two shapes loaded, a result or more from each rank.
    ASSERT_TRUE(wait_for_journal_records(dir + "/journal.bin", 8, std::chrono::seconds(90)));
    ASSERT_FALSE(has_session_ended(dir + "/journal.bin"));
    const auto signalled = Clock::now();
    ASSERT_EQ(::kill(launch.pid(), SIGTERM), 0);
    // mpirun's SIGTERM reaches the ranks after 1 s, its SIGKILL after 2 s: a mark written at
    // all was written in between. Polled here to report how long it took.
    const auto marked =
        seconds_until_marked(dir + "/journal.bin", signalled, std::chrono::milliseconds(5000));
    const TunerExit stopped = launch.wait(std::chrono::seconds(60));
    const double stop_seconds = std::chrono::duration<double>(Clock::now() - signalled).count();
    ASSERT_TRUE(marked.has_value()) << "the journal does not say the session was interrupted\n"
                                    << stopped.log;
    std::printf("journal marked %.3f s after the SIGTERM to mpirun; mpirun ended after %.3f s\n",
                *marked, stop_seconds);
    EXPECT_LT(*marked, 2.5) << stopped.log;
    // mpirun's own status for a job it was told to terminate (Open MPI 4.1): 1. The tuner's
    // word is in the journal.
    EXPECT_EQ(stopped.exit_code, 1) << stopped.log;
    EXPECT_LT(stop_seconds, 10.0) << stopped.log;
    EXPECT_EQ(last_session_exit(dir + "/journal.bin"), 3);

    // What a killed archive write leaves, beside what must survive: a live writer's
    // temporary (this test's pid) and another archive's temporary of a dead pid.
    const pid_t dead = pid_of_an_exited_process();
    const std::string leftover = dir + "/evidence.h5.tmp." + std::to_string(dead);
    const std::string live = dir + "/evidence.h5.tmp." + std::to_string(::getpid());
    const std::string other = dir + "/other.h5.tmp." + std::to_string(dead);
    write_text(leftover, "half an archive");
    write_text(live, "being written");
    write_text(other, "someone else's");

    resume_and_expect_the_uninterrupted_csv(dir);
    EXPECT_FALSE(std::filesystem::exists(leftover));
    EXPECT_EQ(read_file(live), "being written");
    EXPECT_EQ(read_file(other), "someone else's");
}

TEST(TuneMpiLauncherSignal, Sigusr1ToMpirunIsTheOrderlyStopAndMpirunExitsThree) {
    const std::string dir = fresh_directory();
    // The hung candidates get 2 s of grace, then their workers are killed.
    TunerLaunch launch(dir, kRanks, hanging(run_args(dir, "2")));
    ASSERT_TRUE(wait_for_journal_records(dir + "/journal.bin", 8, std::chrono::seconds(90)));
    const auto signalled = Clock::now();
    ASSERT_EQ(::kill(launch.pid(), SIGUSR1), 0);
    const auto marked =
        seconds_until_marked(dir + "/journal.bin", signalled, std::chrono::milliseconds(5000));
    const TunerExit stopped = launch.wait(std::chrono::seconds(60));
    const double stop_seconds = std::chrono::duration<double>(Clock::now() - signalled).count();
    ASSERT_TRUE(marked.has_value()) << stopped.log;
    std::printf("journal marked %.3f s after the SIGUSR1 to mpirun; mpirun ended after %.3f s\n",
                *marked, stop_seconds);
    // Passed on at once: marked well within the second the issue asks for.
    EXPECT_LT(*marked, 1.0) << stopped.log;
    EXPECT_EQ(stopped.exit_code, 3) << stopped.log;
    EXPECT_LT(stop_seconds, 20.0) << stopped.log;
    EXPECT_NE(stopped.log.find("signal 10 received"), std::string::npos) << stopped.log;
    EXPECT_EQ(last_session_exit(dir + "/journal.bin"), 3);
    // The orderly stop wrote the archive of what was measured.
    EXPECT_TRUE(std::filesystem::exists(dir + "/evidence.h5"));

    resume_and_expect_the_uninterrupted_csv(dir);
}

// A finalist whose race is cut short with its session is raced again by --resume in the next
// session. Its contender hangs, so the race is certainly in flight at `signal_number` to
// mpirun; then mpirun ends with `expected_exit`, and the resume must race the shape again,
// that finalist measured, and end with the uninterrupted run's CSV.
void interrupt_a_race_then_resume(const std::string& dir, int signal_number,
                                  const std::string& stop_grace, int expected_exit) {
    // A finalist of the uninterrupted run, not the incumbent.
    std::string shape_key;
    std::int64_t finalist = -1;
    const std::size_t shapes =
        read_journal_facts(uninterrupted_run(dir) + "/journal.bin").final_decisions.size();
    for (const auto& record :
         evidence::read_journal(uninterrupted_run(dir) + "/journal.bin").records) {
        const auto* race = std::get_if<evidence::RaceOutcomeRecord>(&record);
        if (race == nullptr || race->stopped || finalist >= 0) continue;
        for (const auto& contender : race->contenders) {
            if (contender.is_incumbent) continue;
            shape_key = race->shape_key;
            finalist = contender.planned_index;
            break;
        }
    }
    ASSERT_GE(finalist, 0) << "the uninterrupted run held no race";
    ASSERT_GT(shapes, 1U);

    auto args = run_args(dir, stop_grace);
    args.insert(args.end(),
                {"--inject-fault", "hang@race:" + shape_key + ":" + std::to_string(finalist)});
    TunerLaunch launch(dir, kRanks, args);
    // Every other shape decided: the hung race is what is left in flight. (The journal may
    // exist before its header is written: wait_for_journal looks again then.)
    ASSERT_TRUE(wait_for_journal(
        dir + "/journal.bin",
        [&](const JournalFacts& facts) { return facts.final_decisions.size() + 1 >= shapes; },
        std::chrono::seconds(120)))
        << "the other shapes were not decided in 120 s";
    EXPECT_EQ(read_journal_facts(dir + "/journal.bin").final_decisions.count(shape_key), 0U);
    ASSERT_EQ(::kill(launch.pid(), signal_number), 0);
    const TunerExit stopped = launch.wait(std::chrono::seconds(60));
    EXPECT_EQ(stopped.exit_code, expected_exit) << stopped.log;
    EXPECT_EQ(last_session_exit(dir + "/journal.bin"), 3) << stopped.log;

    // The race did not end in that session: no outcome of it decides anything.
    for (const auto& record : evidence::read_journal(dir + "/journal.bin").records) {
        const auto* race = std::get_if<evidence::RaceOutcomeRecord>(&record);
        if (race != nullptr && race->shape_key == shape_key) {
            EXPECT_TRUE(race->stopped) << "the race of " << shape_key << " finished";
        }
    }

    resume_and_expect_the_uninterrupted_csv(dir);
    // The resumed session raced the shape again, the finalist included and measured.
    bool raced_again = false;
    for (const auto& record : evidence::read_journal(dir + "/journal.bin").records) {
        const auto* race = std::get_if<evidence::RaceOutcomeRecord>(&record);
        if (race == nullptr || race->shape_key != shape_key || race->stopped) continue;
        for (const auto& contender : race->contenders) {
            if (contender.planned_index == finalist) {
                EXPECT_EQ(contender.status, tuning::Status::ok) << contender.detail;
                raced_again = true;
            }
        }
    }
    EXPECT_TRUE(raced_again) << "no finished race of " << shape_key << " holds #" << finalist;
}

// SIGTERM: mpirun kills every rank 2 s later; the race was journaled only when it ends, so
// the killed race leaves no outcome and the resume runs it whole.
TEST(TuneMpiLauncherSignal, ARaceKilledWithItsSessionIsRunAgainByResume) {
    interrupt_a_race_then_resume(fresh_directory(), SIGTERM, "30", 1);
}

// SIGUSR1: the orderly stop gives the hung contender 2 s, then kills its worker; the race
// is journaled as stopped (it decides nothing), and the resume runs it again.
TEST(TuneMpiLauncherSignal, ARaceStoppedInOrderIsRunAgainByResume) {
    interrupt_a_race_then_resume(fresh_directory(), SIGUSR1, "2", 3);
}

}  // namespace
}  // namespace fhmoe::cluster::testing
