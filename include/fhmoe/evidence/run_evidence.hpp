#pragma once

// The in-memory evidence of one tuning run: what the tuner fills while it runs and what the
// HDF5 archive stores (docs/evidence-schema.md). Rows refer to shapes by their index in
// `shapes` (the shape id), so the tables join the way the archive's datasets do.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/family/shape.hpp"
#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/result.hpp"

namespace fhmoe::evidence {

// What the run concluded for one shape. The tuner maps its gate verdict and coverage check
// onto it. The names are part of the archive (an HDF5 ENUM) and never change.
enum class Decision : std::uint8_t {
    promote = 0,     // the best challenger beat the incumbent by at least the bar: published
    retain = 1,      // the incumbent stays published: no challenger cleared the bar
    incomplete = 2,  // some candidate has no terminal status: nothing published (coverage)
    all_failed = 3,  // every candidate ended in a failure status: nothing to publish
    pending = 4,     // checkpoint only: the shape has no decision yet
};

inline constexpr Decision all_decisions[] = {Decision::promote, Decision::retain,
                                             Decision::incomplete, Decision::all_failed,
                                             Decision::pending};

std::string_view to_string(Decision decision) noexcept;

// Inverse of to_string; throws fhmoe::ParseError naming the text and the valid names.
Decision decision_from_string(std::string_view text);

// How a candidate's relative_to_incumbent was obtained (tuning/relative_ranking.hpp).
enum class RatioBasis : std::uint8_t {
    none = 0,                    // no ratio: not ok, or the shape has no ok incumbent
    same_chunk_incumbent = 1,    // against the incumbent timed in the same chunk
    other_chunks_incumbent = 2,  // against the median ok incumbent of the other chunks
};

inline constexpr RatioBasis all_ratio_bases[] = {RatioBasis::none, RatioBasis::same_chunk_incumbent,
                                                 RatioBasis::other_chunks_incumbent};

std::string_view to_string(RatioBasis basis) noexcept;

// Marks a time or percentage that does not exist (no incumbent, no ok challenger, ...).
inline constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();

struct PolicyValue {
    std::string name;  // the CLI flag name without dashes ("iters", "min_improvement_pct")
    double value = 0.0;
    bool operator==(const PolicyValue&) const = default;
};

template <typename Visitor, RecordOf<PolicyValue> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("name", r.name);
    visit("value", r.value);
}
static_assert(lists_every_member<PolicyValue>());

struct RankInfo {
    int rank = 0;
    std::string host;
    int device_index = -1;  // -1 for the cpu and sim backends
    std::string device_name;
    std::string device_uuid;
    std::string driver;  // driver / runtime version text; empty when there is none
    bool operator==(const RankInfo&) const = default;
};

template <typename Visitor, RecordOf<RankInfo> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("rank", r.rank);
    visit("host", r.host);
    visit("device_index", r.device_index);
    visit("device_name", r.device_name);
    visit("device_uuid", r.device_uuid);
    visit("driver", r.driver);
}
static_assert(lists_every_member<RankInfo>());

struct Provenance {
    std::string tool_version;
    std::string git_revision;
    std::vector<std::string> command_line;  // argv, one element per argument
    std::string backend;                    // "gpu", "cpu" or "sim"
    std::uint64_t seed = 0;
    std::int64_t started_unix = 0;   // seconds since the epoch
    std::int64_t finished_unix = 0;  // 0 until the run ends
    int exit_status = -1;            // the tuner's exit code; -1 until the run ends
    bool complete = false;           // false in checkpoint archives, true in the final one
    std::vector<PolicyValue> policy;
    std::vector<RankInfo> ranks;
    bool operator==(const Provenance&) const = default;
};

struct ShapeRecord {
    family::DeviceKey device;
    family::ShapeKey key;
    std::string shape_key;  // the key the tuner's results carry (CandidateResult::shape_key)
    std::uint32_t candidate_count = 0;  // candidates planned; rows may be fewer at a checkpoint
    bool operator==(const ShapeRecord&) const = default;
};

struct CandidateRecord {
    std::uint32_t shape_id = 0;
    tuning::CandidateResult result;
    // Candidate time over the incumbent's (below 1 is faster); kAbsent when basis is none.
    double relative_to_incumbent = kAbsent;
    RatioBasis ratio_basis = RatioBasis::none;
};

// One contender's mean time in one round of the finalist race.
struct RaceSample {
    std::uint32_t shape_id = 0;
    std::string candidate_key;  // tuning::CandidateId::key()
    std::uint32_t round = 0;
    double time_us = 0.0;
    bool is_incumbent = false;
};

template <typename Visitor, RecordOf<RaceSample> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_id", r.shape_id);
    visit("candidate_key", r.candidate_key);
    visit("round", r.round);
    visit("time_us", r.time_us);
    visit("is_incumbent", r.is_incumbent);
}
static_assert(lists_every_member<RaceSample>());

struct DecisionRecord {
    std::uint32_t shape_id = 0;
    Decision decision = Decision::pending;
    std::string incumbent_key;  // empty when the shape had no incumbent
    double incumbent_us = kAbsent;
    double incumbent_stderr_us = kAbsent;
    // The race's fastest ok challenger, published only when promoted; empty when none was ok.
    // (schema_version 1 named these three winner_key, winner_us, winner_stderr_us.)
    std::string best_challenger_key;
    double best_challenger_us = kAbsent;
    double best_challenger_stderr_us = kAbsent;
    double margin_pct = kAbsent;  // how much faster the best challenger is, in percent
    double bar_pct = kAbsent;     // max(min_improvement_pct, noise_floor_pct)
    double noise_floor_pct = kAbsent;
    std::string reason;  // one line, from the gate or the coverage check
    // The race that decided: the rank and host it ran on, and when that rank took it and
    // finished it. race_rank -1 (and the rest empty/0) when no race decided the shape or the
    // archive was written before these fields existed; times 0 when the journal that made
    // the archive was written before races carried them.
    std::int32_t race_rank = -1;
    std::string race_host;
    std::int64_t race_started_unix_ns = 0;
    std::int64_t race_finished_unix_ns = 0;
};

template <typename Visitor, RecordOf<DecisionRecord> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("shape_id", r.shape_id);
    visit("decision", r.decision);
    visit("incumbent_key", r.incumbent_key);
    visit("incumbent_us", r.incumbent_us);
    visit("incumbent_stderr_us", r.incumbent_stderr_us);
    visit("best_challenger_key", r.best_challenger_key);
    visit("best_challenger_us", r.best_challenger_us);
    visit("best_challenger_stderr_us", r.best_challenger_stderr_us);
    visit("margin_pct", r.margin_pct);
    visit("bar_pct", r.bar_pct);
    visit("noise_floor_pct", r.noise_floor_pct);
    visit("reason", r.reason);
    visit("race_rank", r.race_rank);
    visit("race_host", r.race_host);
    visit("race_started_unix_ns", r.race_started_unix_ns);
    visit("race_finished_unix_ns", r.race_finished_unix_ns);
}
static_assert(lists_every_member<DecisionRecord>());

struct RunEvidence {
    Provenance provenance;
    std::vector<ShapeRecord> shapes;
    std::vector<CandidateRecord> candidates;
    std::vector<RaceSample> race;
    std::vector<DecisionRecord> decisions;
};

// The words every output uses (docs/evidence-schema.md, "Vocabulary"):
//   incumbent        what serving ran before this run (the tuned CSV's row, or the default)
//   best_challenger  the race's fastest ok challenger, whether or not it cleared the bar
//   published        what serving uses after this run: the best challenger when promoted,
//                    the incumbent when retained, nothing otherwise
enum class PublishedRole : std::uint8_t { none, incumbent, best_challenger };

PublishedRole published_role(const DecisionRecord& decision) noexcept;

// "incumbent", "best_challenger" or "-".
std::string_view to_string(PublishedRole role) noexcept;

// The published configuration's key, race time and its standard error: the best
// challenger's when promoted, the incumbent's when retained; empty / kAbsent otherwise.
std::string published_key(const DecisionRecord& decision);
double published_us(const DecisionRecord& decision);
double published_stderr_us(const DecisionRecord& decision);

}  // namespace fhmoe::evidence
