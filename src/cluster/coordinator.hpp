#pragma once

// Rank 0's loop (DESIGN.md section 1, steps 2 and 5): hands chunks and races to ranks that
// ask (rank 0's own worker included), journals every result before acting on it, merges
// each shape's results, races the finalists of a complete shape, decides with the gate and
// checkpoints the tuned CSV every --batch decisions. It never blocks on one source: it
// poll()s the ranks' descriptors and the signal pipe with a short timeout and asks the ranks
// without one (MPI) between. The ranks are MeasuringRanks (measuring_rank.hpp): rank 0's own
// worker and the MPI ranks in a run, fakes in tests/cluster/coordinator_test.cpp.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/measuring_rank.hpp"
#include "cluster/mpi_transport/termination_signals.hpp"
#include "cluster/run_state/progress_reporter.hpp"
#include "cluster/run_state/race_quiet_rule.hpp"
#include "cluster/run_state/run_summary.hpp"
#include "cluster/run_state/shape_decision.hpp"
#include "cluster/run_state/shape_progress.hpp"
#include "cluster/run_state/tuned_outputs.hpp"
#include "cluster/run_state/work_queue.hpp"
#include "fhmoe/cluster/run_hooks.hpp"
#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::cluster {

// Where a rank stands, as rank 0 sees it.
struct RankState {
    bool ready = false;  // said hello and has no work
    std::optional<std::int64_t> work_id;
    std::string loaded_shape;  // shape key its worker holds (affinity)
    std::string host;
    std::string binding;
    bool signalled = false;
    bool failed = false;  // reported a fatal error (rank_failed): it takes no more work
    int worker_pid = 0;   // the live worker as last reported (workers start with the first work)
    std::string device_uuid;  // the device its worker last reported measuring on
};

struct CoordinatorContext {
    const TuneOptions* options = nullptr;
    family::DeviceKey device;
    const evidence::RunHeader* header = nullptr;
    evidence::JournalWriter* journal = nullptr;
    // Every rank of the run, by rank number: ranks[0] is rank 0's own worker, which needs no
    // hello (RankJoined); the others take work once they said it.
    std::vector<MeasuringRank*> ranks;
    TerminationSignals* signals = nullptr;
    std::string local_host;     // rank 0's host, for the evidence
    std::string local_binding;  // rank 0's device binding
    // Called at every checkpoint after the journal is synced (the evidence archive).
    std::function<void()> on_checkpoint;
    RunHooks hooks;  // for tests
    // Where the progress bar is drawn (with the log lines); null: progress lines, or none
    // with --progress none.
    std::shared_ptr<ProgressTerminal> progress_terminal;
    // The clock of the stop deadline; a test steps it rather than wait out the grace.
    std::function<std::chrono::steady_clock::time_point()> now = &std::chrono::steady_clock::now;
};

enum class RunEnd { finished, interrupted };

class Coordinator {
public:
    explicit Coordinator(CoordinatorContext context);

    // Rebuilds the state of an earlier run from its journal records (no journaling), then
    // plans the work still missing. Call once, before run(), with the records of the journal
    // being resumed (none for a new run).
    void prepare(const std::vector<evidence::JournalRecord>& prior);

    // Until every shape is decided, or a signal stopped the run (then in-flight work is given
    // the grace period to report).
    RunEnd run();

    // Syncs the journal and publishes every decided row (unless --compare holds rows back).
    void checkpoint();
    // The last checkpoint could not write the tuned CSV (its lock timed out, or the file
    // system refused the write: a full disk); the previous CSV is as it was, the decisions
    // are journaled and --resume publishes them.
    bool rows_unpublished() const { return rows_unpublished_; }
    // Of those, the file system refused the write (not the lock): the output is not written.
    bool rows_write_failed() const { return rows_write_failed_; }

    // Journals a result that arrived after run() ended (while the other ranks were released):
    // still evidence, and a resume need not measure it again.
    void record_late_result(const supervisor::CandidateMeasured& measured);

    // The exit code of the first rank that reported a fatal error; the run then stopped
    // as if signalled (checkpointed), and ends with this code.
    std::optional<int> rank_failure_exit_code() const { return rank_failure_exit_code_; }

    std::vector<ShapeOutcome> outcomes() const;
    std::vector<DecidedShape> final_decisions() const;
    const std::vector<ShapeProgress>& shapes() const { return shapes_; }
    const std::vector<RankState>& ranks() const { return ranks_; }
    std::size_t results_received() const { return measured_; }

private:
    void plan_missing_work();
    void settle(ShapeProgress& shape);
    void record_decision(ShapeProgress& shape, evidence::ShapeDecision decision);
    void enqueue_race(ShapeProgress& shape, RaceLineup lineup);
    void dispatch();
    DeviceGroupActivity device_group_activity(int rank) const;
    void assign(int rank, WorkItem item);
    void begin_stop(const std::string& why);
    void handle_event(int rank, const supervisor::Event& event);
    void handle_report(int rank, const RankReport& report);
    void wait_for_activity();
    void after_batch();
    void finish_work(int rank, std::int64_t work_id);
    void on_rank_failed(int rank, const RankFailed& failed);
    int world_size() const { return static_cast<int>(c_.ranks.size()); }
    bool all_settled() const;
    ProgressSnapshot snapshot() const;
    ShapeProgress& shape_by_key(const std::string& key);

    CoordinatorContext c_;
    std::vector<ShapeProgress> shapes_;
    std::map<std::string, std::size_t> shape_index_;
    WorkQueue queue_;
    std::vector<RankState> ranks_;
    struct InFlight {
        int rank = -1;
        std::size_t shape = 0;
        std::size_t candidates = 0;
        bool race = false;
    };
    std::map<std::int64_t, InFlight> in_flight_;
    std::int64_t next_work_id_ = 0;
    std::size_t measured_ = 0;
    std::size_t to_measure_ = 0;
    // Race work in contender-rounds (progress_reporter.hpp): planned, and finished.
    std::size_t races_planned_ = 0;
    std::size_t races_done_ = 0;
    std::size_t race_work_planned_ = 0;
    std::size_t race_work_done_ = 0;
    std::size_t decided_since_checkpoint_ = 0;
    bool stopping_ = false;
    std::chrono::steady_clock::time_point stop_deadline_{};
    std::chrono::steady_clock::time_point started_;
    ProgressReporter progress_;
    bool rows_unpublished_ = false;   // the last checkpoint did not write the tuned CSV
    bool rows_write_failed_ = false;  // ... because the file system refused the write
    bool holding_ = false;
    std::optional<int> rank_failure_exit_code_;
};

}  // namespace fhmoe::cluster
