#pragma once

// The units of work a supervisor runs on its worker: a chunk (some of one shape's planned
// candidates) and a race (finalists timed in interleaved rounds).

#include <cstdint>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/wire/measurement_settings.hpp"

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
};

template <typename Visitor, RecordOf<Chunk> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("chunk_id", r.chunk_id);
    visit("shape", r.shape);
    visit("seed", r.seed);
    visit("candidates", r.candidates);
    visit("measurement", r.measurement);
    visit("candidate_timeout_s", r.candidate_timeout_s);
}
static_assert(lists_every_member<Chunk>());

// Finalists raced on one worker: each round runs every contender once (warmup, then `iters`
// timed runs), the order rotated by one per round so no contender always goes first.
struct Race {
    std::int64_t race_id = 0;
    family::ShapeKey shape;
    std::uint64_t seed = 0;
    std::vector<PlannedCandidate> contenders;
    std::uint32_t rounds = 5;
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
    visit("measurement", r.measurement);
    visit("contender_timeout_s", r.contender_timeout_s);
}
static_assert(lists_every_member<Race>());

}  // namespace fhmoe::supervisor
