// What the supervisor does beyond single injected faults: an outside kill, a stream that is
// really a stream, stops, a load that keeps failing, shape affinity, a real memory limit, a
// broken protocol, races, and the pollable interface an MPI rank loop drives.

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "supervisor/supervisor_test_support.hpp"

namespace fhmoe::supervisor::testing {
namespace {

using tuning::Status;

// Returns once an event satisfies `stop_at`, recording everything. One poll can hand over
// several events (a fast chunk's last results and its ChunkDone together): all of them are
// recorded, and the search resumes after the matching one on the next call, so an event that
// arrived in the same batch as an earlier match is never lost. Bounded by the deadlines the
// supervisor enforces, so it cannot wait forever on a correct supervisor.
template <typename Predicate>
void poll_until(Supervisor& supervisor, Recording& recording, Predicate stop_at) {
    for (;;) {
        while (recording.searched < recording.events.size()) {
            if (stop_at(recording.events[recording.searched++])) return;
        }
        for (const Event& event : supervisor.poll(-1)) recording.record(event);
    }
}

bool is_result_for(const Event& event, std::int64_t planned_index) {
    const auto* measured = std::get_if<CandidateMeasured>(&event);
    return measured != nullptr && measured->planned_index == planned_index;
}

bool is_chunk_done(const Event& event) { return std::holds_alternative<ChunkDone>(event); }

TEST(Supervisor, WorkerKilledFromOutsideMidCandidateIsACrashAndTheRestRun) {
    // Candidate #5 hangs (with a long deadline), so once #4's result has arrived the worker is
    // certainly inside #5 when the test kills it.
    Chunk chunk = make_chunk("sim", 3);
    chunk.candidate_timeout_s = 60.0;
    Supervisor supervisor(make_config("sim", "hang@5"));
    supervisor.start_chunk(chunk);
    Recording run;
    poll_until(supervisor, run, [](const Event& e) { return is_result_for(e, 4); });
    const std::optional<int> victim = supervisor.worker_pid();
    ASSERT_TRUE(victim.has_value());
    const auto killed_at = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(*victim, SIGKILL), 0);
    poll_until(supervisor, run, is_chunk_done);

    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count(),
              5.0);
    const auto& killed = run.only(5);
    EXPECT_EQ(killed.status, Status::crash);
    EXPECT_TRUE(contains(killed.detail,
                         "worker pid " + std::to_string(*victim) + " killed by signal 9 (SIGKILL)"))
        << killed.detail;
    EXPECT_EQ(killed.where.worker_pid, *victim);
    EXPECT_EQ(run.only(4).status, Status::ok);
    EXPECT_EQ(run.only(4).where.worker_pid, *victim);
    EXPECT_EQ(run.only(6).status, Status::ok);
    EXPECT_NE(run.only(6).where.worker_pid, *victim);
    ASSERT_EQ(run.restarts.size(), 1U);
    EXPECT_EQ(run.restarts[0].old_pid, *victim);
}

// The mask of signals a live process ignores, from /proc/<pid>/status ("SigIgn:" in hex).
unsigned long long ignored_signals(int pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("SigIgn:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
    }
    ADD_FAILURE() << "no SigIgn line for pid " << pid;
    return 0;
}

TEST(Supervisor, TheWorkerIgnoresTheSignalsSlurmSendsToTheWholeStep) {
    // scancel --signal=TERM reaches every process of a step, workers included: a worker that
    // died of it would turn the candidate in flight into a crash. The rank stops it instead.
    Chunk chunk = make_chunk("sim", 3);
    Supervisor supervisor(make_config("sim", ""));
    supervisor.start_chunk(chunk);
    Recording run;
    poll_until(supervisor, run, [](const Event& e) { return is_result_for(e, 4); });
    const std::optional<int> worker = supervisor.worker_pid();
    ASSERT_TRUE(worker.has_value());
    const unsigned long long mask = ignored_signals(*worker);
    EXPECT_NE(mask & (1ULL << (SIGTERM - 1)), 0ULL) << std::hex << mask;
    EXPECT_NE(mask & (1ULL << (SIGINT - 1)), 0ULL) << std::hex << mask;
    poll_until(supervisor, run, is_chunk_done);
    EXPECT_TRUE(run.restarts.empty());
}

TEST(Supervisor, ResultsStreamWhileALaterCandidateIsStillRunning) {
    // The last candidate hangs for good; the first two results must reach the caller while
    // it does, and a stop then ends the chunk with the hanging one not_run (not timeout: the
    // stop, not the candidate, cut it short).
    Chunk chunk = make_chunk("sim", 3);
    chunk.candidate_timeout_s = 60.0;
    Supervisor supervisor(make_config("sim", "hang@6"));
    supervisor.start_chunk(chunk);
    Recording run;
    poll_until(supervisor, run, [](const Event& e) { return is_result_for(e, 5); });
    EXPECT_EQ(run.chunks_done, 0);
    EXPECT_EQ(run.only(4).status, Status::ok);
    EXPECT_EQ(run.only(5).status, Status::ok);
    EXPECT_FALSE(supervisor.idle());
    const std::optional<int> pid = supervisor.worker_pid();
    ASSERT_TRUE(pid.has_value());
    EXPECT_EQ(::kill(*pid, 0), 0) << "the worker is alive, inside candidate #6";

    supervisor.request_stop();
    poll_until(supervisor, run, is_chunk_done);
    EXPECT_TRUE(run.stopped);
    EXPECT_EQ(run.only(6).status, Status::not_run);
    EXPECT_TRUE(contains(run.only(6).detail, "stop grace")) << run.only(6).detail;
    EXPECT_TRUE(supervisor.idle());
}

TEST(Supervisor, StopLetsTheCandidateInFlightFinishWithinTheGrace) {
    // Candidates #4..#9; each cpu candidate times 30 runs. The worker starts the next
    // candidate as soon as it reports one, so the first candidate not yet reported when the
    // stop comes is the one in flight. Usually that is #5; on a loaded machine the test may
    // read #4 late, together with #5, so the in-flight one is found, not assumed.
    Chunk chunk = make_chunk("cpu", 6);
    chunk.measurement.iters = 30;
    chunk.candidate_timeout_s = 30.0;
    SupervisorConfig config = make_config("cpu");
    config.stop_grace_s = 30.0;
    Supervisor supervisor(config);
    supervisor.start_chunk(chunk);
    Recording run;
    poll_until(supervisor, run, [](const Event& e) { return is_result_for(e, 4); });
    const std::int64_t in_flight = run.results.rbegin()->first + 1;
    ASSERT_LE(in_flight, 9) << "the whole chunk ran before the stop: nothing was in flight";
    supervisor.request_stop();
    poll_until(supervisor, run, is_chunk_done);
    EXPECT_TRUE(run.stopped);
    for (std::int64_t index = 4; index < in_flight; ++index) {
        EXPECT_EQ(run.only(index).status, Status::ok) << "#" << index << " reported before";
    }
    EXPECT_EQ(run.only(in_flight).status, Status::ok) << "in flight: allowed to finish";
    EXPECT_EQ(run.only(in_flight).timing.n_raw, 30U);
    for (std::int64_t index = in_flight + 1; index <= 9; ++index) {
        EXPECT_EQ(run.only(index).status, Status::not_run) << "#" << index;
        EXPECT_TRUE(contains(run.only(index).detail, "stopped before it ran"))
            << run.only(index).detail;
    }
    EXPECT_FALSE(supervisor.worker_pid().has_value()) << "the stopped worker is gone";
}

TEST(Supervisor, StopBeforeAnythingRanLeavesEverythingNotRun) {
    Supervisor supervisor(make_config("sim"));
    supervisor.start_chunk(make_chunk("sim", 3));
    supervisor.request_stop();
    Recording run;
    poll_until(supervisor, run, is_chunk_done);
    EXPECT_TRUE(run.stopped);
    for (std::int64_t index = 4; index <= 6; ++index) {
        EXPECT_EQ(run.only(index).status, Status::not_run);
    }
}

TEST(Supervisor, ALoadThatKeepsFailingPublishesNothingAndLeavesCandidatesNotRun) {
    Supervisor supervisor(make_config("sim", "genfail!@4"));
    const Recording run = record_chunk(supervisor, make_chunk("sim", 3));
    ASSERT_EQ(run.load_failures.size(), 1U);
    EXPECT_EQ(run.load_failures[0].attempts, 2U);
    EXPECT_EQ(run.restarts.size(), 2U) << "each failed load retires its worker";
    EXPECT_TRUE(run.loads.empty());
    for (std::int64_t index = 4; index <= 6; ++index) {
        EXPECT_EQ(run.only(index).status, Status::not_run);
        EXPECT_TRUE(contains(run.only(index).detail, "shape load failed after 2 attempts"));
        EXPECT_TRUE(contains(run.only(index).detail, "genfail!@4"));
    }
    EXPECT_FALSE(run.stopped);
}

TEST(Supervisor, KeepsTheWorkerAndItsShapeAcrossChunksOfTheSameShape) {
    Supervisor supervisor(make_config("sim"));
    const Recording first = record_chunk(supervisor, make_chunk("sim", 2, 1, 7));
    const Recording second = record_chunk(supervisor, make_chunk("sim", 2, 2, 7));
    const Recording reseeded = record_chunk(supervisor, make_chunk("sim", 2, 3, 8));
    EXPECT_EQ(first.loads.size(), 1U);
    EXPECT_EQ(second.loads.size(), 0U) << "same shape and seed: no reload";
    EXPECT_EQ(reseeded.loads.size(), 1U) << "another seed is other data";
    EXPECT_EQ(first.only(4).where.worker_pid, second.only(4).where.worker_pid);
    EXPECT_EQ(second.only(4).chunk, 2);
    EXPECT_NE(first.loads[0].reference_digest, reseeded.loads[0].reference_digest);
}

// --search screen across a worker death: the fresh worker is handed the chunk's full
// measurements (the incumbent's above all, which it never measured itself), so it prunes
// exactly what one worker would have pruned without the candidate that killed it. The sim's noise
// depends only on the candidate and its run, so the two runs see the same samples.
TEST(Supervisor, AReplacementWorkerScreensAgainstWhatItsPredecessorMeasured) {
    auto screened_chunk = [] {
        Chunk chunk = make_chunk("sim", 16);
        chunk.screen.enabled = true;
        chunk.screen.warmup = 1;
        chunk.screen.iters = 4;
        chunk.screen.error_rate = 0.2;  // prunes readily: the test needs pruned candidates
        chunk.screen.min_improvement_pct = 3.0;
        return chunk;
    };
    const std::int64_t crash_at = first_planned_index + 3;
    // The clean run leaves out the candidate that crashes: a crashed candidate is no
    // reference, so the crashed run's references are those of a chunk without it.
    Chunk without = screened_chunk();
    without.candidates.erase(without.candidates.begin() + 3);
    Supervisor clean_supervisor(make_config("sim"));
    const Recording clean = record_chunk(clean_supervisor, without);
    Supervisor crashing_supervisor(make_config("sim", "crash@" + std::to_string(crash_at)));
    const Recording crashed = record_chunk(crashing_supervisor, screened_chunk());
    ASSERT_EQ(crashed.restarts.size(), 1U);
    EXPECT_EQ(crashed.only(crash_at).status, Status::crash);

    EXPECT_FALSE(clean.only(first_planned_index).screen.screened) << "the incumbent: in full";
    int pruned_after_crash = 0;
    for (std::int64_t index = crash_at + 1; index < first_planned_index + 16; ++index) {
        const tuning::CandidateResult& want = clean.only(index);
        const tuning::CandidateResult& got = crashed.only(index);
        SCOPED_TRACE("candidate #" + std::to_string(index));
        EXPECT_EQ(got.status, Status::ok);
        EXPECT_TRUE(got.screen.screened);
        EXPECT_EQ(got.screen.pruned, want.screen.pruned);
        EXPECT_EQ(got.screen.prune_bound, want.screen.prune_bound);
        EXPECT_DOUBLE_EQ(got.screen.prune_margin_pct, want.screen.prune_margin_pct);
        EXPECT_EQ(got.timing.n_raw, want.screen.pruned ? 4U : 3U);
        if (got.screen.pruned) ++pruned_after_crash;
    }
    EXPECT_GT(pruned_after_crash, 0) << "nothing pruned after the crash: the test proves nothing";
}

TEST(Supervisor, AMemoryLimitMakesEveryCandidateAnOomPreflightWithoutInjection) {
    Supervisor supervisor(make_config("cpu", "", {"--memory-limit-bytes", "1"}));
    const Recording run = record_chunk(supervisor, make_chunk("cpu", 2));
    for (std::int64_t index = 4; index <= 5; ++index) {
        EXPECT_EQ(run.only(index).status, Status::oom_preflight);
        EXPECT_FALSE(run.only(index).fault_injected);
    }
    ASSERT_EQ(run.loads.size(), 1U);
    EXPECT_EQ(run.loads[0].bytes_free, 0U);
    EXPECT_NE(run.loads[0].device.device_name, "sim");
}

TEST(Supervisor, ABrokenProtocolIsTreatedAsACrash) {
    // A real process that speaks garbage where the worker's hello belongs.
    const auto script = std::filesystem::temp_directory_path() /
                        ("fhmoe_garbage_worker_" + std::to_string(::getpid()) + ".sh");
    {
        std::ofstream out(script);
        out << "#!/bin/sh\nprintf 'this is not an fhmoe frame' >&3\nexec cat <&3 >/dev/null\n";
    }
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    SupervisorConfig config = make_config("sim");
    config.worker_executable = script.string();
    Supervisor supervisor(config);
    const Recording run = record_chunk(supervisor, make_chunk("sim", 2));
    std::filesystem::remove(script);
    ASSERT_EQ(run.load_failures.size(), 1U);
    EXPECT_TRUE(contains(run.load_failures[0].detail, "bad frame magic"))
        << run.load_failures[0].detail;
    EXPECT_EQ(run.only(4).status, Status::not_run);
}

TEST(Supervisor, PollableInterfaceNeverBlocksAndWaitFdWakesForEveryStep) {
    // The MPI rank loop's way: poll() on wait_fd() next to other descriptors, then
    // supervisor.poll(0). A crash and a hang (deadline) must both surface through wait_fd.
    Chunk chunk = make_chunk("sim", 3);
    chunk.candidate_timeout_s = 0.5;
    Supervisor supervisor(make_config("sim", "crash@4,hang@5"));
    supervisor.start_chunk(chunk);
    Recording run;
    const auto start = std::chrono::steady_clock::now();
    while (run.chunks_done == 0) {
        pollfd watch{supervisor.wait_fd(), POLLIN, 0};
        ASSERT_GE(::poll(&watch, 1, 10000), 1) << "wait_fd did not wake within 10 s";
        const auto before = std::chrono::steady_clock::now();
        for (const Event& event : supervisor.poll(0)) run.record(event);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count(),
                  0.5)
            << "poll(0) blocked";
        ASSERT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                  20.0);
    }
    EXPECT_EQ(run.only(4).status, Status::crash);
    EXPECT_EQ(run.only(5).status, Status::timeout);
    EXPECT_EQ(run.only(6).status, Status::ok);
    EXPECT_TRUE(supervisor.idle());
}

Race make_race(std::uint32_t rounds) {
    Race race;
    race.race_id = 9;
    race.shape = tiny_shape();
    race.seed = 7;
    race.contenders = planned_candidates(3);
    race.rounds = rounds;
    race.measurement = {1, 4, 0.05, 1e-2, 1e-2};
    race.contender_timeout_s = sim_deadline_s;
    return race;
}

TEST(Supervisor, RaceReturnsEverySamplePerContenderPerRound) {
    Supervisor supervisor(make_config("sim"));
    const RaceDone done = run_race(supervisor, make_race(3), nullptr);
    EXPECT_EQ(done.race_id, 9);
    EXPECT_EQ(done.rounds_completed, 3U);
    ASSERT_EQ(done.contenders.size(), 3U);
    for (const ContenderOutcome& c : done.contenders) {
        EXPECT_EQ(c.status, Status::ok);
        ASSERT_EQ(c.samples_us.size(), 3U);
        for (const auto& round : c.samples_us) EXPECT_EQ(round.size(), 4U);
        EXPECT_NE(c.samples_us[0], c.samples_us[1]) << "each round is a fresh measurement";
    }
}

TEST(Supervisor, AContenderWhoseWorkerDiesIsRacedAgainOnAFreshWorker) {
    // crash@5 fires on the race's first worker life only: the loss is not the contender's
    // doing, so it runs again in the same round on the fresh worker and stays a finalist.
    Supervisor supervisor(make_config("sim", "crash@5"));
    Recording events;
    const RaceDone done =
        run_race(supervisor, make_race(3), [&](const Event& e) { events.record(e); });
    EXPECT_EQ(done.rounds_completed, 3U);
    ASSERT_EQ(done.contenders.size(), 3U);
    for (const ContenderOutcome& c : done.contenders) {
        EXPECT_EQ(c.status, Status::ok) << c.detail;
        for (const auto& round : c.samples_us) EXPECT_EQ(round.size(), 4U);
    }
    EXPECT_TRUE(contains(done.contenders[1].detail, "run again on a fresh worker"))
        << done.contenders[1].detail;
    EXPECT_TRUE(contains(done.contenders[1].detail, "SIGSEGV")) << done.contenders[1].detail;
    EXPECT_EQ(events.restarts.size(), 1U);
}

TEST(Supervisor, AContenderThatKillsItsFreshWorkerTooLeavesTheRaceAndTheRaceGoesOn) {
    Supervisor supervisor(make_config("sim", "crash!@5"));
    Recording events;
    const RaceDone done =
        run_race(supervisor, make_race(3), [&](const Event& e) { events.record(e); });
    EXPECT_EQ(done.rounds_completed, 3U);
    ASSERT_EQ(done.contenders.size(), 3U);
    EXPECT_EQ(done.contenders[1].status, Status::crash);
    EXPECT_TRUE(contains(done.contenders[1].detail, "run again on a fresh worker"))
        << done.contenders[1].detail;
    EXPECT_TRUE(contains(done.contenders[1].detail, "SIGSEGV")) << done.contenders[1].detail;
    // Round 0 runs positions 0,1,2: position 0 ran before the crash and keeps its samples.
    EXPECT_EQ(done.contenders[0].samples_us[0].size(), 4U);
    for (std::size_t p : {0U, 2U}) {
        EXPECT_EQ(done.contenders[p].status, Status::ok);
        for (const auto& round : done.contenders[p].samples_us) EXPECT_EQ(round.size(), 4U);
    }
    EXPECT_EQ(events.restarts.size(), 2U);
}

// An adaptive race (issue #14) runs further batches while its sequential test is undecided.
// A false_promotion_rate of 1e-12 makes every confidence interval too wide to clear or
// exclude the 3% bar, so the race must run every batch to its cap; a bar of 1000% is
// excluded by every finalist at once (no margin exceeds 100%), so the race must stop after
// its first batch. Either way the worker is sent one batch at a time and every round of
// every contender is kept.
Race adaptive_race(double false_promotion_rate, double min_improvement_pct) {
    Race race = make_race(3);
    AdaptiveRounds adaptive;
    adaptive.max_rounds = 8;  // looks after 3, 6 and 8 rounds
    adaptive.incumbent_position = 2;
    adaptive.min_improvement_pct = min_improvement_pct;
    adaptive.false_promotion_rate = false_promotion_rate;
    race.adaptive = adaptive;
    return race;
}

TEST(Supervisor, AnUndecidedAdaptiveRaceRunsBatchesUpToItsCap) {
    Supervisor supervisor(make_config("sim"));
    const RaceDone done = run_race(supervisor, adaptive_race(1e-12, 3.0), nullptr);
    EXPECT_EQ(done.rounds_completed, 8U);
    for (const ContenderOutcome& c : done.contenders) {
        EXPECT_EQ(c.status, Status::ok) << c.detail;
        ASSERT_EQ(c.samples_us.size(), 8U);
        for (const auto& round : c.samples_us) EXPECT_EQ(round.size(), 4U);
        EXPECT_NE(c.samples_us[2], c.samples_us[3]) << "the second batch measures afresh";
    }
}

TEST(Supervisor, AnAdaptiveRaceThatExcludesTheBarStopsAfterItsFirstBatch) {
    Supervisor supervisor(make_config("sim"));
    const RaceDone done = run_race(supervisor, adaptive_race(0.01, 1000.0), nullptr);
    EXPECT_EQ(done.rounds_completed, 3U);
    for (const ContenderOutcome& c : done.contenders) EXPECT_EQ(c.samples_us.size(), 3U);
}

TEST(Supervisor, ARaceOnlyFaultSparesTheChunkAndHitsTheRace) {
    Supervisor supervisor(make_config("sim", "exit@race:5"));
    const Recording chunk = record_chunk(supervisor, make_chunk("sim", 3));
    EXPECT_TRUE(chunk.restarts.empty());
    EXPECT_EQ(chunk.only(5).status, Status::ok);
    Recording race_events;
    const RaceDone done =
        run_race(supervisor, make_race(2), [&](const Event& e) { race_events.record(e); });
    ASSERT_EQ(done.contenders.size(), 3U);
    EXPECT_EQ(done.contenders[1].status, Status::ok) << done.contenders[1].detail;
    EXPECT_TRUE(contains(done.contenders[1].detail, "exit@race:5")) << done.contenders[1].detail;
    EXPECT_EQ(race_events.restarts.size(), 1U);
}

}  // namespace
}  // namespace fhmoe::supervisor::testing
