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
#include <string>
#include <variant>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/wire/frame.hpp"
#include "fhmoe/wire/measurement_settings.hpp"

namespace fhmoe::worker {

inline constexpr std::uint16_t protocol_version = 2;  // 2: settings carry max_cosine_distance

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

struct CandidateToRun {
    std::int64_t planned_index = 0;
    tuning::CandidateId id;
    family::Candidate config;
    std::uint32_t attempt = 0;  // worker lives that already started it (faults fire on 0)
};

struct RunCandidates {
    std::int64_t chunk_id = 0;
    wire::MeasurementSettings settings;
    std::vector<CandidateToRun> candidates;
};

struct RaceContender {
    std::uint32_t position = 0;  // in the race's full contender list; fixes the rotation
    std::int64_t planned_index = 0;
    tuning::CandidateId id;
    family::Candidate config;
};

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

struct Shutdown {};

// ---- worker -> supervisor

struct Hello {
    std::int32_t pid = 0;
    std::string backend;
    tuning::MeasuredOn device;
};

struct ShapeLoadedReply {
    std::string shape_key;
    std::uint64_t reference_digest = 0;
    std::uint64_t bytes_in_use = 0;
    std::uint64_t bytes_free = 0;
    double seconds = 0.0;
};

struct LoadFailed {
    std::string detail;
    bool fault_injected = false;
};

// Sent just before an injected fault that kills or wedges the worker fires, so the
// supervisor can record that the crash or timeout it is about to see was asked for.
struct FaultAnnounced {
    std::int64_t planned_index = 0;
    std::string fault;  // the spec entry, e.g. "crash@3"
};

struct CandidateResultReply {
    std::int64_t planned_index = 0;
    bool context_poisoned = false;  // the worker exits after this frame
    tuning::CandidateResult result;
};

struct RunDone {
    std::int64_t chunk_id = 0;
};

struct RaceSample {
    std::uint32_t round = 0;
    std::uint32_t position = 0;
    tuning::Status status = tuning::Status::ok;
    std::string detail;
    bool fault_injected = false;
    bool context_poisoned = false;
    std::vector<double> samples_us;
};

struct RaceFinished {
    std::int64_t race_id = 0;
};

// The worker cannot go on (it received a frame it cannot decode); it exits after this.
struct WorkerFatal {
    std::string detail;
};

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
