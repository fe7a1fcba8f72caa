#pragma once

// Running the real fhmoe_tune_mpi under the real mpiexec for the process-level tests: a
// fresh directory per test, the launch (output to a log file), bounded waits, signals to the
// rank processes (as srun delivers them), and readers for what a run leaves behind.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/evidence/journal.hpp"

namespace fhmoe::cluster::testing {

// A new empty directory under the build tree, named after the running test.
std::string fresh_directory();

struct TunerExit {
    int exit_code = -1;  // mpiexec's exit status; 128+n when it died of signal n
    double seconds = 0.0;
    std::string log;  // stdout and stderr of every rank
};

class TunerLaunch {
public:
    // mpiexec -n ranks --oversubscribe --allow-run-as-root fhmoe_tune_mpi args..., in `dir`,
    // with `env` added to the environment.
    TunerLaunch(const std::string& dir, int ranks, const std::vector<std::string>& args,
                const std::map<std::string, std::string>& env = {});
    // MPMD: one mpiexec, several app contexts (ranks, args) joined by ':'.
    TunerLaunch(const std::string& dir,
                const std::vector<std::pair<int, std::vector<std::string>>>& apps,
                const std::map<std::string, std::string>& env = {});
    ~TunerLaunch();  // kills the launch if it is still running
    TunerLaunch(const TunerLaunch&) = delete;
    TunerLaunch& operator=(const TunerLaunch&) = delete;

    // Waits for the launch to end, at most `limit` (then kills it and fails the test).
    TunerExit wait(std::chrono::seconds limit);
    // The tuner processes mpiexec started (its children), found through /proc.
    std::vector<pid_t> rank_pids() const;
    // Sends `signal_number` to every rank, as Slurm does on preemption.
    void signal_ranks(int signal_number) const;
    pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    std::string log_path_;
    std::chrono::steady_clock::time_point started_;
};

// One launch to the end.
TunerExit run_tuner(const std::string& dir, int ranks, const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env = {},
                    std::chrono::seconds limit = std::chrono::seconds(180));

// The tuned rows of a CSV, keyed "token/gate_mode" -> "block_m kernelName1 kernelName2".
std::map<std::string, std::string> tuned_choices(const std::string& tuned_csv);
// As tuned_choices, but a file that does not exist has no rows.
std::map<std::string, std::string> tuned_choices_if_any(const std::string& tuned_csv);

// What a journal says happened, per shape.
struct JournalFacts {
    // shape key -> candidate key -> terminal result records of that candidate
    std::map<std::string, std::map<std::string, int>> terminal_records;
    // shape key -> final decisions recorded (promote/retain/all_failed)
    std::map<std::string, std::vector<evidence::ShapeDecision>> final_decisions;
    evidence::RunHeader header;
    std::size_t records = 0;
};
JournalFacts read_journal_facts(const std::string& path);

// Waits (bounded) until the journal at `path`, which another process is writing, says
// `reached`: a journal not there yet, or without its header yet, is looked at again at the
// next write to its directory.
bool wait_for_journal(const std::string& path,
                      const std::function<bool(const JournalFacts&)>& reached,
                      std::chrono::seconds limit);
// Waits (bounded) until the journal at `path` holds at least `records` intact records.
bool wait_for_journal_records(const std::string& path, std::size_t records,
                              std::chrono::seconds limit);

// Asserts (gtest) that every planned candidate but the incumbent has exactly one terminal
// record, and the incumbent at least one: nothing measured lost, nothing measured twice.
void expect_each_candidate_once(const JournalFacts& facts);

// The common arguments of these tests: the small shapes, seeded sample, short timing.
std::vector<std::string> small_run_args(const std::string& dir, const std::string& backend,
                                        int sample, std::uint64_t seed);

std::string read_file(const std::string& path);

}  // namespace fhmoe::cluster::testing
