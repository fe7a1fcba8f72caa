#pragma once

// The units of work a supervisor runs on its worker: a chunk (some of one shape's planned
// candidates) and a race (finalists timed in interleaved rounds).

#include <cstdint>
#include <optional>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/wire/measurement_settings.hpp"
#include "fhmoe/wire/screen_settings.hpp"

namespace fhmoe::supervisor {

// One candidate as the planner listed it. planned_index is its position in the shape's
// planned list: it is stable across chunking and resumes, so fault injection and records
// can name a candidate by it. The id travels with the config so that neither the supervisor
// nor the worker has to re-derive names.
struct PlannedCandidate {
    std::int64_t planned_index = 0;
    tuning::CandidateId id;
    family::Candidate config;
    // Worker lives that already started this candidate (a resume passes the journal's
    // count): injected faults fire only on attempt 0, so a resume does not re-fault.
    std::uint32_t attempt = 0;
};

template <typename Visitor, RecordOf<PlannedCandidate> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("planned_index", r.planned_index);
    visit("id", r.id);
    visit("config", r.config);
    visit("attempt", r.attempt);
}
static_assert(lists_every_member<PlannedCandidate>());

struct Chunk {
    std::int64_t chunk_id = 0;
    family::ShapeKey shape;
    std::uint64_t seed = 0;  // data generation seed: identical on every rank
    std::vector<PlannedCandidate> candidates;
    wire::MeasurementSettings measurement;
    double candidate_timeout_s = 1800.0;  // per candidate, never per chunk
    // --search screen: the candidates after the first are screened against the first, which
    // is then the shape's incumbent (the planner puts it first in every chunk).
    wire::ScreenSettings screen;
};

template <typename Visitor, RecordOf<Chunk> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("chunk_id", r.chunk_id);
    visit("shape", r.shape);
    visit("seed", r.seed);
    visit("candidates", r.candidates);
    visit("measurement", r.measurement);
    visit("candidate_timeout_s", r.candidate_timeout_s);
    visit("screen", r.screen);
}
static_assert(lists_every_member<Chunk>());

// What an adaptive race needs to decide, after each batch of rounds, whether to run another
// (tuning::race_needs_more_rounds, the sequential test of tuning/race.hpp): the cap, the
// promotion policy the coordinator gates the race with, and which contender is the
// incumbent the finalists are paired with. The supervisor applies the same pure rule the
// coordinator decides with, so the race stops exactly at the look the decision is made at.
struct AdaptiveRounds {
    std::uint32_t max_rounds = 0;
    std::uint32_t incumbent_position = 0;  // index into Race::contenders
    double min_improvement_pct = 0.0;
    double false_promotion_rate = 0.0;
    bool lower_bound_gate = false;
};

template <typename Visitor, RecordOf<AdaptiveRounds> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("max_rounds", r.max_rounds);
    visit("incumbent_position", r.incumbent_position);
    visit("min_improvement_pct", r.min_improvement_pct);
    visit("false_promotion_rate", r.false_promotion_rate);
    visit("lower_bound_gate", r.lower_bound_gate);
}
static_assert(lists_every_member<AdaptiveRounds>());

// Finalists raced on one worker: each round runs every contender once (warmup, then `iters`
// timed runs), the order rotated by one per round so no contender always goes first. The
// race runs `rounds` rounds; with `adaptive`, it then runs further batches of `rounds`
// rounds, up to adaptive->max_rounds, until the sequential test decides.
struct Race {
    std::int64_t race_id = 0;
    family::ShapeKey shape;
    std::uint64_t seed = 0;
    std::vector<PlannedCandidate> contenders;
    std::uint32_t rounds = 5;
    std::optional<AdaptiveRounds> adaptive;  // absent: a fixed race of `rounds` rounds
    wire::MeasurementSettings measurement;
    double contender_timeout_s = 1800.0;  // per contender per round
};

template <typename Visitor, RecordOf<Race> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("race_id", r.race_id);
    visit("shape", r.shape);
    visit("seed", r.seed);
    visit("contenders", r.contenders);
    visit("rounds", r.rounds);
    visit("adaptive", r.adaptive);
    visit("measurement", r.measurement);
    visit("contender_timeout_s", r.contender_timeout_s);
}
static_assert(lists_every_member<Race>());

}  // namespace fhmoe::supervisor
