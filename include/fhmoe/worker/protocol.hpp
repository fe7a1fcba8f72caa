#pragma once

// The supervisor <-> worker protocol (version 1). Every message is one checksummed frame
// (wire/frame.hpp); a frame that fails to decode is a protocol error and the supervisor
// treats the worker as crashed.
//
//   supervisor                              worker
//                                     <-   Hello (pid, backend, device)
//   LoadShape (shape, seed)           ->
//                                     <-   ShapeLoadedReply | LoadFailed
//   RunCandidates (settings, list)    ->
//                                     <-   [FaultAnnounced] CandidateResultReply   (one per
//                                     <-   ...                      candidate, as soon as ready)
//                                     <-   RunDone
//   RunRace (settings, contenders)    ->
//                                     <-   RaceSample ... (one per contender per round)
//                                     <-   RaceFinished
//   Shutdown                          ->   (exits 0)
//
// A worker whose context faulted sends its result with context_poisoned set and exits: no
// timing is ever taken in a context that faulted.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/wire/frame.hpp"
#include "fhmoe/wire/measurement_settings.hpp"
#include "fhmoe/wire/screen_settings.hpp"

namespace fhmoe::worker {

// 2: settings carry max_cosine_distance. 3: run_candidates carries the screen.
inline constexpr std::uint16_t protocol_version = 3;

// Descriptors the worker finds its socket on (the supervisor dup2()s it there at spawn).
inline constexpr int worker_socket_fd = 3;

enum class MessageType : std::uint16_t {
    load_shape = 1,
    run_candidates = 2,
    run_race = 3,
    shutdown = 4,
    hello = 101,
    shape_loaded = 102,
    load_failed = 103,
    fault_announced = 104,
    candidate_result = 105,
    run_done = 106,
    race_sample = 107,
    race_finished = 108,
    worker_fatal = 109,
};

// ---- supervisor -> worker

// next_planned_index: the planned index of the first candidate this worker life will run
// (fault injection's genfail@k names it). attempt: earlier loads for that same index.
struct LoadShape {
    family::ShapeKey shape;
    std::uint64_t seed = 0;
    std::int64_t next_planned_index = 0;
    std::uint32_t attempt = 0;
};

template <typename Visitor, RecordOf<LoadShape> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape", r.shape);
    visit("seed", r.seed);
    visit("next_planned_index", r.next_planned_index);
    visit("attempt", r.attempt);
}
static_assert(lists_every_member<LoadShape>());

struct CandidateToRun {
    std::int64_t planned_index = 0;
    tuning::CandidateId id;
    family::Candidate config;
    std::uint32_t attempt = 0;  // worker lives that already started it (faults fire on 0)
};

template <typename Visitor, RecordOf<CandidateToRun> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("planned_index", r.planned_index);
    visit("id", r.id);
    visit("config", r.config);
    visit("attempt", r.attempt);
}
static_assert(lists_every_member<CandidateToRun>());

// How the candidates of a run are screened (--search screen, tuning/screen.hpp). The
// incumbent (incumbent_planned_index) is always measured in full. `references` are the full
// measurements the chunk already has: a worker that replaces a dead one goes on comparing
// with what its predecessor measured (the same device, so the times compare).
struct ScreenRun {
    wire::ScreenSettings settings;  // settings.enabled false: every candidate measured in full
    std::int64_t incumbent_planned_index = -1;
    std::optional<tuning::TimingStats> incumbent;
    std::optional<tuning::TimingStats> chunk_best;
};

template <typename Visitor, RecordOf<ScreenRun> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("settings", r.settings);
    visit("incumbent_planned_index", r.incumbent_planned_index);
    visit("incumbent", r.incumbent);
    visit("chunk_best", r.chunk_best);
}
static_assert(lists_every_member<ScreenRun>());

struct RunCandidates {
    std::int64_t chunk_id = 0;
    wire::MeasurementSettings settings;
    std::vector<CandidateToRun> candidates;
    ScreenRun screen;
};

template <typename Visitor, RecordOf<RunCandidates> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("chunk_id", r.chunk_id);
    visit("settings", r.settings);
    visit("candidates", r.candidates);
    visit("screen", r.screen);
}
static_assert(lists_every_member<RunCandidates>());

struct RaceContender {
    std::uint32_t position = 0;  // in the race's full contender list; fixes the rotation
    std::int64_t planned_index = 0;
    tuning::CandidateId id;
    family::Candidate config;
};

template <typename Visitor, RecordOf<RaceContender> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("position", r.position);
    visit("planned_index", r.planned_index);
    visit("id", r.id);
    visit("config", r.config);
}
static_assert(lists_every_member<RaceContender>());

// Rounds first_round .. rounds-1. In round r the contenders run in order of
// (position - r) mod total_contenders. Contenders listed in skip_in_first_round already
// ran first_round in an earlier worker life.
struct RunRace {
    std::int64_t race_id = 0;
    wire::MeasurementSettings settings;
    std::uint32_t total_contenders = 0;
    std::vector<RaceContender> contenders;  // the ones still in the race
    std::uint32_t first_round = 0;
    std::uint32_t rounds = 0;
    std::vector<std::uint32_t> skip_in_first_round;  // positions
    std::uint32_t attempt = 0;                       // worker lives this race already used
};

template <typename Visitor, RecordOf<RunRace> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("race_id", r.race_id);
    visit("settings", r.settings);
    visit("total_contenders", r.total_contenders);
    visit("contenders", r.contenders);
    visit("first_round", r.first_round);
    visit("rounds", r.rounds);
    visit("skip_in_first_round", r.skip_in_first_round);
    visit("attempt", r.attempt);
}
static_assert(lists_every_member<RunRace>());

struct Shutdown {};

template <typename Visitor, RecordOf<Shutdown> Record>
constexpr void fields(Visitor&&, Record&) {}

// ---- worker -> supervisor

struct Hello {
    std::int32_t pid = 0;
    std::string backend;
    tuning::MeasuredOn device;
};

template <typename Visitor, RecordOf<Hello> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("pid", r.pid);
    visit("backend", r.backend);
    visit("device", r.device);
}
static_assert(lists_every_member<Hello>());

struct ShapeLoadedReply {
    std::string shape_key;
    std::uint64_t reference_digest = 0;
    std::uint64_t bytes_in_use = 0;
    std::uint64_t bytes_free = 0;
    double seconds = 0.0;
};

template <typename Visitor, RecordOf<ShapeLoadedReply> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_key", r.shape_key);
    visit("reference_digest", r.reference_digest);
    visit("bytes_in_use", r.bytes_in_use);
    visit("bytes_free", r.bytes_free);
    visit("seconds", r.seconds);
}
static_assert(lists_every_member<ShapeLoadedReply>());

struct LoadFailed {
    std::string detail;
    bool fault_injected = false;
};

template <typename Visitor, RecordOf<LoadFailed> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("detail", r.detail);
    visit("fault_injected", r.fault_injected);
}
static_assert(lists_every_member<LoadFailed>());

// Sent just before an injected fault that kills or wedges the worker fires, so the
// supervisor can record that the crash or timeout it is about to see was asked for.
struct FaultAnnounced {
    std::int64_t planned_index = 0;
    std::string fault;  // the spec entry, e.g. "crash@3"
};

template <typename Visitor, RecordOf<FaultAnnounced> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("planned_index", r.planned_index);
    visit("fault", r.fault);
}
static_assert(lists_every_member<FaultAnnounced>());

struct CandidateResultReply {
    std::int64_t planned_index = 0;
    bool context_poisoned = false;  // the worker exits after this frame
    tuning::CandidateResult result;
};

template <typename Visitor, RecordOf<CandidateResultReply> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("planned_index", r.planned_index);
    visit("context_poisoned", r.context_poisoned);
    visit("result", r.result);
}
static_assert(lists_every_member<CandidateResultReply>());

struct RunDone {
    std::int64_t chunk_id = 0;
};

template <typename Visitor, RecordOf<RunDone> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("chunk_id", r.chunk_id);
}
static_assert(lists_every_member<RunDone>());

struct RaceSample {
    std::uint32_t round = 0;
    std::uint32_t position = 0;
    tuning::Status status = tuning::Status::ok;
    std::string detail;
    bool fault_injected = false;
    bool context_poisoned = false;
    std::vector<double> samples_us;
};

template <typename Visitor, RecordOf<RaceSample> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("round", r.round);
    visit("position", r.position);
    visit("status", r.status);
    visit("detail", r.detail);
    visit("fault_injected", r.fault_injected);
    visit("context_poisoned", r.context_poisoned);
    visit("samples_us", r.samples_us);
}
static_assert(lists_every_member<RaceSample>());

struct RaceFinished {
    std::int64_t race_id = 0;
};

template <typename Visitor, RecordOf<RaceFinished> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("race_id", r.race_id);
}
static_assert(lists_every_member<RaceFinished>());

// The worker cannot go on (it received a frame it cannot decode); it exits after this.
struct WorkerFatal {
    std::string detail;
};

template <typename Visitor, RecordOf<WorkerFatal> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("detail", r.detail);
}
static_assert(lists_every_member<WorkerFatal>());

using Command = std::variant<LoadShape, RunCandidates, RunRace, Shutdown>;
using Reply = std::variant<Hello, ShapeLoadedReply, LoadFailed, FaultAnnounced,
                           CandidateResultReply, RunDone, RaceSample, RaceFinished, WorkerFatal>;

// Whole frames (header + payload).
std::vector<std::uint8_t> encode_command(const Command& command);
std::vector<std::uint8_t> encode_reply(const Reply& reply);

// Decode a frame's payload by its type. Throws wire::WireError on an unknown type, a
// command where a reply is expected (or the reverse), or a malformed payload.
Command decode_command(const wire::Frame& frame);
Reply decode_reply(const wire::Frame& frame);

}  // namespace fhmoe::worker
