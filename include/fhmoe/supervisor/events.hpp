#pragma once

// What a supervisor reports while it works. Events come out of Supervisor::poll() in the
// order they happened; a CandidateMeasured is emitted as soon as its frame arrives.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "fhmoe/tuning/result.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::supervisor {

// The worker built the shape's inputs and reference.
struct ShapeLoaded {
    std::string shape_key;
    std::uint64_t reference_digest = 0;  // identical on every rank for the same (shape, seed)
    std::uint64_t bytes_in_use = 0;      // what the loaded problem occupies on the device
    std::uint64_t bytes_free = 0;        // what the device had free after the load
    tuning::MeasuredOn device;           // host, device name/uuid/index, worker pid
    double seconds = 0.0;                // wall time of the load inside the worker
};

// The load failed for good (after the retry with a fresh worker). The chunk's remaining
// candidates follow as not_run, then ChunkDone.
struct ShapeLoadFailed {
    std::string shape_key;
    std::string detail;
    std::uint32_t attempts = 0;
};

// One candidate reached a status: measured by the worker, or crash/timeout assigned by the
// supervisor to the candidate in flight when its worker died, or not_run (stop / load
// failure). Every candidate of a chunk gets exactly one.
struct CandidateMeasured {
    std::int64_t chunk_id = 0;
    std::int64_t planned_index = 0;
    tuning::CandidateResult result;
};

struct ChunkDone {
    std::int64_t chunk_id = 0;
    bool stopped = false;  // request_stop() cut it short: some candidates are not_run
};

// One contender of a race. samples_us[r] holds round r's timed samples (empty when the
// contender did not run that round). A contender whose run faulted keeps the fault status
// and takes no part in later rounds.
struct ContenderOutcome {
    std::int64_t planned_index = 0;
    tuning::CandidateId id;
    tuning::Status status = tuning::Status::not_run;
    std::string detail;
    std::vector<std::vector<double>> samples_us;
};

struct RaceDone {
    std::int64_t race_id = 0;
    std::vector<ContenderOutcome> contenders;  // in the Race's contender order
    std::uint32_t rounds_completed = 0;
    bool stopped = false;
    tuning::MeasuredOn device;  // where the race ran (the last worker life)
    // Wall clock (ns since the epoch) when this supervisor took the race and when it ended,
    // shape loading included: the span in which the race's device was the race's alone.
    std::int64_t started_unix_ns = 0;
    std::int64_t finished_unix_ns = 0;
};

// The worker died or was killed; a fresh one is started when work remains.
struct WorkerRestarted {
    int old_pid = 0;
    std::string reason;  // "signal 11 (SIGSEGV)", "exit code 3", "deadline 2.0 s passed"...
};

using Event = std::variant<ShapeLoaded, ShapeLoadFailed, CandidateMeasured, ChunkDone, RaceDone,
                           WorkerRestarted>;

}  // namespace fhmoe::supervisor
