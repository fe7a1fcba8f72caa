#pragma once

// The records of the run journal (journal.hpp): what each one holds, its field list, and its
// frame payload (journal_records.cpp).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::evidence {

// Frame version of journal records; a journal of a version this build does not know is
// refused, not guessed.
// 2: the session records (session_started, rank_joined, session_ended) that make the
// journal the evidence archive's only source. Fields appended to the end of a record's
// payload keep the version: a reader takes them when present and leaves their defaults when
// an older writer left them out (a race's started/finished times came so).
// 3: a candidate's stage1 carries k_splits (Stage1Config). Version 2 frames still read (the
// member absent, so 0: the derived split, which is what those runs ran); a resumed version 2
// run appends version 3 frames.
inline constexpr std::uint16_t journal_format_version = 3;
inline constexpr std::uint16_t oldest_readable_journal_format_version = 2;

enum class JournalRecordType : std::uint16_t {
    run_header = 1,
    shape_loaded = 2,
    shape_load_failed = 3,
    candidate_result = 4,
    race_outcome = 5,
    decision = 6,
    session_started = 7,
    rank_joined = 8,
    session_ended = 9,
};

// One shape as the run planned it. The candidate list is stored whole so that a resume
// re-plans from the journal, not from the tuned CSV (which the run itself rewrites every
// --batch shapes) or from a catalogue that might have changed.
struct PlannedShape {
    family::ShapeKey shape;                     // raw token, as in the untuned CSV
    std::vector<family::Candidate> candidates;  // index = planned index
    std::int64_t incumbent_index = 0;           // into candidates
    bool incumbent_from_tuned_row = false;      // false: default config (first tune of the shape)
    std::optional<double> incumbent_row_us;     // the tuned row's us, when it had one
    std::string unsupported_reason;             // non-empty: the family cannot run the shape
};

template <typename Visitor, RecordOf<PlannedShape> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape", r.shape);
    visit("candidates", r.candidates);
    visit("incumbent_index", r.incumbent_index);
    visit("incumbent_from_tuned_row", r.incumbent_from_tuned_row);
    visit("incumbent_row_us", r.incumbent_row_us);
    visit("unsupported_reason", r.unsupported_reason);
}
static_assert(lists_every_member<PlannedShape>());

struct RunHeader {
    // Everything that must match for a resume to continue this run, as named text values
    // ("seed" -> "7"), so a mismatch can be reported field by field.
    std::map<std::string, std::string> fingerprint;
    std::vector<PlannedShape> shapes;
    std::string tool_version;
    std::int64_t started_unix_ns = 0;
};

template <typename Visitor, RecordOf<RunHeader> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("fingerprint", r.fingerprint);
    visit("shapes", r.shapes);
    visit("tool_version", r.tool_version);
    visit("started_unix_ns", r.started_unix_ns);
}
// (std::map is no constexpr type, so RunHeader's list is checked against its members by
// tests/cluster/record_fields_test.cpp rather than by a static_assert here.)

struct ShapeLoadedRecord {
    std::string shape_key;
    std::uint64_t reference_digest = 0;
    tuning::MeasuredOn device;  // rank, host, device, worker pid
    double seconds = 0.0;
};

template <typename Visitor, RecordOf<ShapeLoadedRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_key", r.shape_key);
    visit("reference_digest", r.reference_digest);
    visit("device", r.device);
    visit("seconds", r.seconds);
}
static_assert(lists_every_member<ShapeLoadedRecord>());

struct ShapeLoadFailedRecord {
    std::string shape_key;
    std::int64_t chunk_id = -1;
    int rank = -1;
    std::string host;
    std::string detail;
    std::uint32_t attempts = 0;
};

template <typename Visitor, RecordOf<ShapeLoadFailedRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_key", r.shape_key);
    visit("chunk_id", r.chunk_id);
    visit("rank", r.rank);
    visit("host", r.host);
    visit("detail", r.detail);
    visit("attempts", r.attempts);
}
static_assert(lists_every_member<ShapeLoadFailedRecord>());

struct CandidateResultRecord {
    std::int64_t chunk_id = -1;
    std::int64_t planned_index = -1;
    tuning::CandidateResult result;
};

template <typename Visitor, RecordOf<CandidateResultRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("chunk_id", r.chunk_id);
    visit("planned_index", r.planned_index);
    visit("result", r.result);
}
static_assert(lists_every_member<CandidateResultRecord>());

struct RaceContenderRecord {
    std::int64_t planned_index = -1;
    tuning::CandidateId id;
    bool is_incumbent = false;
    tuning::Status status = tuning::Status::not_run;
    std::string detail;
    std::vector<std::vector<double>> samples_us;  // [round][sample]
};

template <typename Visitor, RecordOf<RaceContenderRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("planned_index", r.planned_index);
    visit("id", r.id);
    visit("is_incumbent", r.is_incumbent);
    visit("status", r.status);
    visit("detail", r.detail);
    visit("samples_us", r.samples_us);
}
static_assert(lists_every_member<RaceContenderRecord>());

struct RaceOutcomeRecord {
    std::string shape_key;
    std::int64_t race_id = -1;
    std::uint32_t rounds_completed = 0;
    bool stopped = false;  // cut short by a stop: a resume races again
    tuning::MeasuredOn device;
    std::vector<RaceContenderRecord> contenders;
    // When the racing rank took the race and when it ended (supervisor::RaceDone); 0 in
    // journals written before these fields existed.
    std::int64_t started_unix_ns = 0;
    std::int64_t finished_unix_ns = 0;
};

template <typename Visitor, RecordOf<RaceOutcomeRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_key", r.shape_key);
    visit("race_id", r.race_id);
    visit("rounds_completed", r.rounds_completed);
    visit("stopped", r.stopped);
    visit("device", r.device);
    visit("contenders", r.contenders);
    visit("started_unix_ns", r.started_unix_ns);
    visit("finished_unix_ns", r.finished_unix_ns);
}
static_assert(lists_every_member<RaceOutcomeRecord>());

enum class DecisionKind : std::uint8_t { promote = 0, retain = 1, incomplete = 2, all_failed = 3 };
constexpr DecisionKind last_enumerator(DecisionKind) noexcept { return DecisionKind::all_failed; }

std::string_view to_string(DecisionKind kind) noexcept;

// What the run decided for one shape, and the tuned row it publishes (if any).
struct ShapeDecision {
    std::string shape_key;
    DecisionKind kind = DecisionKind::incomplete;
    tuning::CandidateId incumbent;
    // The published candidate: the one serving uses after this run (the best challenger when
    // promoted, the incumbent when retained; absent when nothing is published).
    std::optional<tuning::CandidateId> published;
    // The race's best challenger (absent when none finished ok), published or not, and its
    // race time.
    std::optional<tuning::CandidateId> best_challenger;
    std::optional<double> best_challenger_us;
    std::optional<double> best_challenger_stderr_us;
    std::optional<double> incumbent_stderr_us;
    std::optional<double> margin_pct;
    double bar_pct = 0.0;
    double noise_floor_pct = 0.0;
    std::optional<double> incumbent_us;           // race mean (or chunk mean without a race)
    std::optional<double> published_measured_us;  // the published one's race or chunk mean
    std::string reason;
    // The tuned row to write: a promoted best challenger, or the first row of a shape that had
    // none.
    bool publish = false;
    family::Candidate published_candidate;
    double published_us = 0.0;
    double published_err = 0.0;
};

template <typename Visitor, RecordOf<ShapeDecision> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_key", r.shape_key);
    visit("kind", r.kind);
    visit("incumbent", r.incumbent);
    visit("published", r.published);
    visit("best_challenger", r.best_challenger);
    visit("best_challenger_us", r.best_challenger_us);
    visit("best_challenger_stderr_us", r.best_challenger_stderr_us);
    visit("incumbent_stderr_us", r.incumbent_stderr_us);
    visit("margin_pct", r.margin_pct);
    visit("bar_pct", r.bar_pct);
    visit("noise_floor_pct", r.noise_floor_pct);
    visit("incumbent_us", r.incumbent_us);
    visit("published_measured_us", r.published_measured_us);
    visit("reason", r.reason);
    visit("publish", r.publish);
    visit("published_candidate", r.published_candidate);
    visit("published_us", r.published_us);
    visit("published_err", r.published_err);
}
static_assert(lists_every_member<ShapeDecision>());

// One launch of the tuner on this journal: the first run and every --resume. Together with
// rank_joined and session_ended it holds the run provenance the evidence archive reports,
// so that the archive can be rebuilt from the journal alone after any crash.
struct SessionStartedRecord {
    std::vector<std::string> command_line;  // argv, one element per argument
    std::string backend;
    std::uint64_t seed = 0;
    family::DeviceKey device;  // the gfx/cu_num the shapes are tuned for
    int world_size = 1;        // MPI ranks of this launch
    std::int64_t started_unix = 0;
    std::string tool_version;
    // The policy values the archive's /policy lists, by name, in this order.
    std::vector<std::pair<std::string, double>> policy;
};

template <typename Visitor, RecordOf<SessionStartedRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("command_line", r.command_line);
    visit("backend", r.backend);
    visit("seed", r.seed);
    visit("device", r.device);
    visit("world_size", r.world_size);
    visit("started_unix", r.started_unix);
    visit("tool_version", r.tool_version);
    visit("policy", r.policy);
}
static_assert(lists_every_member<SessionStartedRecord>());

// A rank of the current session said hello (rank 0 joins with the session).
struct RankJoinedRecord {
    int rank = 0;
    std::string host;
    std::string binding;  // how the rank chose its device (device_binding.hpp)
};

template <typename Visitor, RecordOf<RankJoinedRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("rank", r.rank);
    visit("host", r.host);
    visit("binding", r.binding);
}
static_assert(lists_every_member<RankJoinedRecord>());

// The current session ended with this exit code (absent after a kill: the archive then
// says the run did not finish).
struct SessionEndedRecord {
    std::int64_t finished_unix = 0;
    int exit_status = 0;
};

template <typename Visitor, RecordOf<SessionEndedRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("finished_unix", r.finished_unix);
    visit("exit_status", r.exit_status);
}
static_assert(lists_every_member<SessionEndedRecord>());

using JournalRecord = std::variant<RunHeader, ShapeLoadedRecord, ShapeLoadFailedRecord,
                                   CandidateResultRecord, RaceOutcomeRecord, ShapeDecision,
                                   SessionStartedRecord, RankJoinedRecord, SessionEndedRecord>;

// One record's frame bytes, and the inverse (throws wire::WireError on a malformed payload):
// `version` is the frame's, from oldest_readable_journal_format_version on.
std::vector<std::uint8_t> encode_journal_record(const JournalRecord& record);
JournalRecord decode_journal_record(std::uint16_t type, std::span<const std::uint8_t> payload,
                                    std::uint16_t version = journal_format_version);

}  // namespace fhmoe::evidence
