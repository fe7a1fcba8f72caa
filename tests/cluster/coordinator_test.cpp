// Rank 0's Coordinator without mpiexec: the ranks that measure are fakes
// (coordinator_fake_rank.hpp); the journal, the tuned CSV and the signal handling are the
// real ones. The failure paths are the point: a rank that fails or is signalled, a worker
// that crashed, work that never reports after a stop, a shape that did not load or whose
// digests disagree, and the test hooks.

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>

#include "cluster/coordinator.hpp"
#include "cluster_fixtures.hpp"
#include "coordinator_fake_rank.hpp"
#include "evidence/scratch_dir.hpp"
#include "fhmoe/exit_code.hpp"

namespace fhmoe::cluster {
namespace {

using testing::FakeRank;
using testing::planned_shape;
using tuning::Status;

template <typename Record>
std::vector<Record> records_of(const std::string& journal_path) {
    std::vector<Record> found;
    for (auto& record : evidence::read_journal(journal_path).records) {
        if (auto* r = std::get_if<Record>(&record)) found.push_back(std::move(*r));
    }
    return found;
}

class CoordinatorTest : public ::testing::Test {
protected:
    CoordinatorTest() {
        options.policy = tuning::default_policy();
        options.backend = worker::BackendKind::sim;  // every rank is its own device group
        options.seed = 7;
        options.chunk_size = 2;
        options.tuned_path = dir.file("tuned.csv");
        options.journal_path = dir.file("journal");
    }

    // `ranks` fakes: rank 0 needs no hello, the others say it at once.
    void add_ranks(int ranks) {
        for (int rank = 0; rank < ranks; ++rank) {
            fakes.push_back(std::make_unique<FakeRank>());
            if (rank > 0) fakes.back()->join("host" + std::to_string(rank));
        }
    }

    FakeRank& rank(int r) { return *fakes.at(static_cast<std::size_t>(r)); }

    Coordinator& start(std::vector<evidence::PlannedShape> shapes) {
        header.shapes = std::move(shapes);
        journal.emplace(evidence::JournalWriter::create(options.journal_path, header));
        CoordinatorContext context;
        context.options = &options;
        context.device = family::DeviceKey{"gfx942", 304};
        context.header = &header;
        context.journal = &*journal;
        for (auto& fake : fakes) context.ranks.push_back(fake.get());
        context.signals = &signals;
        context.local_host = "host0";
        context.local_binding = "none";
        context.on_checkpoint = [this] { ++checkpoints; };
        context.hooks = hooks;
        context.now = now;
        coordinator = std::make_unique<Coordinator>(context);
        coordinator->prepare({});
        return *coordinator;
    }

    const ShapeProgress& shape(std::size_t i) const { return coordinator->shapes().at(i); }

    evidence::testing::ScratchDir dir;
    TuneOptions options;
    evidence::RunHeader header;
    std::optional<evidence::JournalWriter> journal;
    TerminationSignals signals;
    std::vector<std::unique_ptr<FakeRank>> fakes;
    RunHooks hooks;
    std::function<std::chrono::steady_clock::time_point()> now = &std::chrono::steady_clock::now;
    std::unique_ptr<Coordinator> coordinator;
    int checkpoints = 0;
};

TEST_F(CoordinatorTest, EveryShapeIsDecidedWithWorkOnEveryRankAndPublished) {
    add_ranks(2);
    Coordinator& c = start({planned_shape(16, 5), planned_shape(32, 5)});

    EXPECT_EQ(c.run(), RunEnd::finished);
    for (std::size_t i = 0; i < 2; ++i) {
        ASSERT_TRUE(shape(i).decision) << i;
        EXPECT_EQ(shape(i).decision->kind, evidence::DecisionKind::promote) << i;
        ASSERT_TRUE(shape(i).decision->published);
        EXPECT_EQ(*shape(i).decision->published,
                  family::to_candidate_id(header.shapes[i].candidates[0]));
    }
    EXPECT_FALSE(rank(0).chunks.empty());
    EXPECT_FALSE(rank(1).chunks.empty());                        // once it said hello
    EXPECT_EQ(rank(0).races.size() + rank(1).races.size(), 2u);  // one race per shape
    EXPECT_EQ(rank(0).interrupts + rank(1).interrupts, 0);
    // 4 challengers per shape in chunks of 2, each chunk with the incumbent: 6 results each.
    EXPECT_EQ(c.results_received(), 12u);

    c.checkpoint();
    EXPECT_FALSE(c.rows_unpublished());
    EXPECT_EQ(checkpoints, 1);
    EXPECT_TRUE(std::filesystem::exists(options.tuned_path));
    EXPECT_EQ(records_of<evidence::CandidateResultRecord>(options.journal_path).size(), 12u);
    const auto joined = records_of<evidence::RankJoinedRecord>(options.journal_path);
    ASSERT_EQ(joined.size(), 1u);
    EXPECT_EQ(joined[0].rank, 1);
    EXPECT_EQ(c.ranks()[1].host, "host1");
}

TEST_F(CoordinatorTest, ARankWithoutRoomIsGivenNoWork) {
    add_ranks(2);
    rank(0).room = false;  // rank 0's supervisor still busy, say
    Coordinator& c = start({planned_shape(16, 5)});

    EXPECT_EQ(c.run(), RunEnd::finished);
    EXPECT_TRUE(rank(0).chunks.empty());
    EXPECT_TRUE(rank(0).races.empty());
    EXPECT_EQ(rank(1).chunks.size(), 2u);
    ASSERT_TRUE(shape(0).decision);
    EXPECT_EQ(shape(0).decision->kind, evidence::DecisionKind::promote);
}

TEST_F(CoordinatorTest, ARankThatFailsStopsTheRunWithItsExitCodeAndLeavesItsWorkToTheResume) {
    add_ranks(2);
    rank(1).on_chunk = [](FakeRank& r, const supervisor::Chunk& chunk) {
        r.report_event(testing::measured(chunk, chunk.candidates.front(), Status::ok, 100.0));
        r.report(RankFailed{4, "worker program missing"});  // and no chunk_done: it is gone
    };
    // Rank 0 takes every chunk it can until rank 1 joined: give it none, so rank 1 fails
    // with a chunk in hand.
    rank(0).room = false;
    Coordinator& c = start({planned_shape(16, 5)});

    EXPECT_EQ(c.run(), RunEnd::interrupted);
    EXPECT_EQ(c.rank_failure_exit_code(), 4);
    EXPECT_TRUE(c.ranks()[1].failed);
    EXPECT_EQ(rank(1).chunks.size(), 1u);  // a failed rank takes no more work
    EXPECT_EQ(rank(0).interrupts, 1);
    EXPECT_EQ(rank(1).interrupts, 1);
    // What it reported before failing is journaled; the rest is left to --resume, undecided.
    EXPECT_FALSE(shape(0).decision);
    EXPECT_EQ(records_of<evidence::CandidateResultRecord>(options.journal_path).size(), 1u);
    const auto ended = records_of<evidence::SessionEndedRecord>(options.journal_path);
    ASSERT_EQ(ended.size(), 1u);
    EXPECT_EQ(ended[0].exit_status, 4);
}

TEST_F(CoordinatorTest, ASignalledRankStopsTheRunAndTheWorkInFlightReportsNotRun) {
    add_ranks(2);
    rank(0).room = false;
    rank(1).on_chunk = [](FakeRank& r, const supervisor::Chunk& chunk) {
        FakeRank::hold_chunk(r, chunk);
        r.report(RankSignalled{});
    };
    Coordinator& c = start({planned_shape(16, 5)});

    EXPECT_EQ(c.run(), RunEnd::interrupted);
    EXPECT_FALSE(c.rank_failure_exit_code());
    EXPECT_TRUE(c.ranks()[1].signalled);
    EXPECT_EQ(rank(1).interrupts, 1);
    EXPECT_FALSE(rank(1).held);       // the interrupt ended it, and the stop waited for that
    EXPECT_FALSE(shape(0).decision);  // a stop leaves what is missing to the resume
    const auto results = records_of<evidence::CandidateResultRecord>(options.journal_path);
    ASSERT_EQ(results.size(), rank(1).chunks.at(0).candidates.size());
    for (const auto& r : results) EXPECT_EQ(r.result.status, Status::not_run);
    const auto ended = records_of<evidence::SessionEndedRecord>(options.journal_path);
    ASSERT_EQ(ended.size(), 1u);
    EXPECT_EQ(ended[0].exit_status, to_int(ExitCode::interrupted));
}

TEST_F(CoordinatorTest, WorkThatNeverReportsDoesNotHoldTheStopPastItsGrace) {
    add_ranks(2);
    rank(0).room = false;
    rank(1).on_chunk = [](FakeRank& r, const supervisor::Chunk& chunk) {
        FakeRank::hold_chunk(r, chunk);
        ASSERT_EQ(::raise(SIGUSR1), 0);  // the launcher stops the job meanwhile
    };
    rank(1).on_interrupt = FakeRank::ignore_interrupt;  // its node is gone, say
    options.stop_grace_s = 1.0;
    // A clock that moves a second each time it is read: the grace passes in a few turns of
    // the loop instead of six seconds.
    auto fake_now = std::make_shared<std::chrono::steady_clock::time_point>();
    now = [fake_now] { return *fake_now += std::chrono::seconds(1); };
    Coordinator& c = start({planned_shape(16, 5)});
    const auto before = *fake_now;

    EXPECT_EQ(c.run(), RunEnd::interrupted);
    EXPECT_EQ(rank(1).interrupts, 1);
    EXPECT_TRUE(c.ranks()[1].work_id);  // still unreported
    // Not before the grace (1 s) and the margin for the last messages (5 s) were over.
    EXPECT_GT(*fake_now - before, std::chrono::seconds(6));
    EXPECT_TRUE(records_of<evidence::CandidateResultRecord>(options.journal_path).empty());
    EXPECT_FALSE(shape(0).decision);
}

TEST_F(CoordinatorTest, ACrashedCandidateIsJournaledAndTheShapeIsStillDecided) {
    add_ranks(1);
    rank(0).on_chunk = [](FakeRank& r, const supervisor::Chunk& chunk) {
        r.report_loaded(chunk);
        for (const auto& candidate : chunk.candidates) {
            // Planned index 1 kills its worker; the supervisor restarts it and goes on.
            if (candidate.planned_index == 1) {
                auto crashed = testing::measured(chunk, candidate, Status::crash, 0.0);
                crashed.result.detail = "signal 11 (SIGSEGV)";
                r.report_event(crashed);
                r.report_event(supervisor::WorkerRestarted{1234, "signal 11 (SIGSEGV)"});
                continue;
            }
            r.report_event(testing::measured(chunk, candidate, Status::ok,
                                             testing::default_time_us(candidate.planned_index)));
        }
        r.report_event(supervisor::ChunkDone{chunk.chunk_id, false});
    };
    Coordinator& c = start({planned_shape(16, 5)});

    EXPECT_EQ(c.run(), RunEnd::finished);
    ASSERT_TRUE(shape(0).decision);
    EXPECT_EQ(shape(0).decision->kind, evidence::DecisionKind::promote);
    EXPECT_EQ(shape(0).counts()[Status::crash], 1u);
    std::size_t crashes = 0;
    for (const auto& r : records_of<evidence::CandidateResultRecord>(options.journal_path)) {
        if (r.result.status == Status::crash) ++crashes;
    }
    EXPECT_EQ(crashes, 1u);
}

TEST_F(CoordinatorTest, AShapeThatDidNotLoadIsDecidedIncompleteSayingWhy) {
    add_ranks(1);
    rank(0).on_chunk = [](FakeRank& r, const supervisor::Chunk& chunk) {
        r.report_event(supervisor::ShapeLoadFailed{family::shape_key_string(chunk.shape),
                                                   "reference generation ran out of memory", 2});
        for (const auto& candidate : chunk.candidates) {
            r.report_event(testing::measured(chunk, candidate, Status::not_run, 0.0));
        }
        r.report_event(supervisor::ChunkDone{chunk.chunk_id, false});
    };
    Coordinator& c = start({planned_shape(16, 5)});

    EXPECT_EQ(c.run(), RunEnd::finished);
    ASSERT_TRUE(shape(0).decision);
    EXPECT_EQ(shape(0).decision->kind, evidence::DecisionKind::incomplete);
    EXPECT_NE(shape(0).decision->reason.find("reference generation ran out of memory"),
              std::string::npos)
        << shape(0).decision->reason;
    EXPECT_TRUE(rank(0).races.empty());
    EXPECT_EQ(records_of<evidence::ShapeLoadFailedRecord>(options.journal_path).size(), 2u);
}

TEST_F(CoordinatorTest, RanksThatDisagreeOnTheReferenceLeaveTheShapeIncomplete) {
    add_ranks(2);
    rank(1).digest = 0xbad;
    // 8 challengers in 4 chunks: rank 0 takes one alone, then each rank one; the digests
    // differ before the fourth is handed out.
    Coordinator& c = start({planned_shape(16, 9)});

    EXPECT_EQ(c.run(), RunEnd::finished);
    ASSERT_FALSE(rank(1).chunks.empty());  // both ranks loaded the shape
    ASSERT_TRUE(shape(0).decision);
    EXPECT_EQ(shape(0).decision->kind, evidence::DecisionKind::incomplete);
    EXPECT_TRUE(rank(0).races.empty());
    EXPECT_TRUE(rank(1).races.empty());
    // The chunk still queued was dropped rather than measured: its results could not be
    // compared with the others anyway.
    EXPECT_EQ(rank(0).chunks.size() + rank(1).chunks.size(), 3u);
}

TEST_F(CoordinatorTest, TheHoldHookKeepsWorkBackUntilASignalAndTheFlushHookSeesEveryFlush) {
    add_ranks(2);
    std::vector<std::size_t> flushes;
    hooks.hold_work = [](std::size_t) { return true; };
    hooks.after_journal_flush = [&flushes](std::size_t records) {
        flushes.push_back(records);
        if (flushes.size() == 3) {
            ASSERT_EQ(::raise(SIGUSR1), 0);
        }
    };
    Coordinator& c = start({planned_shape(16, 5)});

    EXPECT_EQ(c.run(), RunEnd::interrupted);
    EXPECT_TRUE(rank(0).chunks.empty());
    EXPECT_TRUE(rank(1).chunks.empty());
    ASSERT_GE(flushes.size(), 3u);
    EXPECT_TRUE(std::is_sorted(flushes.begin(), flushes.end()));
    EXPECT_EQ(flushes.back(), journal->records_flushed());
}

TEST_F(CoordinatorTest, ALateResultIsJournaledLikeALiveOne) {
    add_ranks(1);
    Coordinator& c = start({planned_shape(16, 5)});
    supervisor::Chunk chunk;
    chunk.chunk_id = 41;
    chunk.shape = header.shapes[0].shape;
    supervisor::PlannedCandidate candidate;
    candidate.planned_index = 2;
    candidate.id = family::to_candidate_id(header.shapes[0].candidates[2]);
    auto late = testing::measured(chunk, candidate, Status::ok, 80.0);
    late.result.chunk = -1;  // a worker that did not say: the chunk it came with

    c.record_late_result(late);
    journal->flush();
    const auto results = records_of<evidence::CandidateResultRecord>(options.journal_path);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].chunk_id, 41);
    EXPECT_EQ(results[0].planned_index, 2);
    EXPECT_EQ(results[0].result.chunk, 41);
    EXPECT_EQ(results[0].result.timing.mean_us, 80.0);
}

}  // namespace
}  // namespace fhmoe::cluster
