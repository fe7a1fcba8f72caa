#pragma once

// What a supervisor reports while it works. Events come out of Supervisor::poll() in the
// order they happened; a CandidateMeasured is emitted as soon as its frame arrives.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "fhmoe/record_fields.hpp"
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

template <typename Visitor, RecordOf<ShapeLoaded> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_key", r.shape_key);
    visit("reference_digest", r.reference_digest);
    visit("bytes_in_use", r.bytes_in_use);
    visit("bytes_free", r.bytes_free);
    visit("device", r.device);
    visit("seconds", r.seconds);
}
static_assert(lists_every_member<ShapeLoaded>());

// The load failed for good (after the retry with a fresh worker). The chunk's remaining
// candidates follow as not_run, then ChunkDone.
struct ShapeLoadFailed {
    std::string shape_key;
    std::string detail;
    std::uint32_t attempts = 0;
};

template <typename Visitor, RecordOf<ShapeLoadFailed> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_key", r.shape_key);
    visit("detail", r.detail);
    visit("attempts", r.attempts);
}
static_assert(lists_every_member<ShapeLoadFailed>());

// One candidate reached a status: measured by the worker, or crash/timeout assigned by the
// supervisor to the candidate in flight when its worker died, or not_run (stop / load
// failure). Every candidate of a chunk gets exactly one.
struct CandidateMeasured {
    std::int64_t chunk_id = 0;
    std::int64_t planned_index = 0;
    tuning::CandidateResult result;
};

template <typename Visitor, RecordOf<CandidateMeasured> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("chunk_id", r.chunk_id);
    visit("planned_index", r.planned_index);
    visit("result", r.result);
}
static_assert(lists_every_member<CandidateMeasured>());

struct ChunkDone {
    std::int64_t chunk_id = 0;
    bool stopped = false;  // request_stop() cut it short: some candidates are not_run
};

template <typename Visitor, RecordOf<ChunkDone> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("chunk_id", r.chunk_id);
    visit("stopped", r.stopped);
}
static_assert(lists_every_member<ChunkDone>());

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

template <typename Visitor, RecordOf<ContenderOutcome> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("planned_index", r.planned_index);
    visit("id", r.id);
    visit("status", r.status);
    visit("detail", r.detail);
    visit("samples_us", r.samples_us);
}
static_assert(lists_every_member<ContenderOutcome>());

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

template <typename Visitor, RecordOf<RaceDone> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("race_id", r.race_id);
    visit("contenders", r.contenders);
    visit("rounds_completed", r.rounds_completed);
    visit("stopped", r.stopped);
    visit("device", r.device);
    visit("started_unix_ns", r.started_unix_ns);
    visit("finished_unix_ns", r.finished_unix_ns);
}
static_assert(lists_every_member<RaceDone>());

// The worker died or was killed; a fresh one is started when work remains.
struct WorkerRestarted {
    int old_pid = 0;
    std::string reason;  // "signal 11 (SIGSEGV)", "exit code 3", "deadline 2.0 s passed"...
};

template <typename Visitor, RecordOf<WorkerRestarted> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("old_pid", r.old_pid);
    visit("reason", r.reason);
}
static_assert(lists_every_member<WorkerRestarted>());

using Event = std::variant<ShapeLoaded, ShapeLoadFailed, CandidateMeasured, ChunkDone, RaceDone,
                           WorkerRestarted>;

}  // namespace fhmoe::supervisor
