#pragma once

// From a complete shape to a decision (DESIGN.md section 1, step 5), pure: the finalists and
// the incumbent race on one device, and the gate of tuning/gate.hpp decides with the race's
// noise floor. Decisions: promote, retain, incomplete, all_failed; each says what serves the
// shape afterwards and which tuned row, if any, the run publishes for it.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/supervisor/chunk.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/tuning/relative_ranking.hpp"
#include "fhmoe/tuning/shape_merge.hpp"

namespace fhmoe::cluster {

// The contenders of a shape's race: the finalists by time relative to the incumbent, then the
// incumbent itself when it measured ok (an incumbent that failed has nothing to defend).
struct RaceLineup {
    std::vector<supervisor::PlannedCandidate> contenders;
    bool incumbent_races = false;  // the last contender is the incumbent
};

// The race to run for a complete shape, or the decision when there is nothing to race (no
// candidate other than the incumbent measured ok).
std::variant<RaceLineup, evidence::ShapeDecision> plan_race(
    const evidence::PlannedShape& planned, const tuning::CompleteShape& complete,
    const tuning::IncumbentByChunk& incumbent_by_chunk, const tuning::FinalistPolicy& policy);

// The race the coordinator sends for a lineup: its contenders, `rounds` rounds per batch,
// and, when the incumbent races, the adaptive rounds of `policy` (up to max_rounds, the
// stop rule of tuning/race.hpp with the promotion policy the race is gated with).
supervisor::Race race_for(RaceLineup lineup, const tuning::TuningPolicy& policy);

// The decision from a race that ran to its end (under `finalist`'s looks: it stopped at the
// look the sequential test decided at, or at its cap).
evidence::ShapeDecision decide_from_race(const evidence::PlannedShape& planned,
                                         const tuning::CompleteShape& complete,
                                         const evidence::RaceOutcomeRecord& race,
                                         const tuning::PromotionPolicy& policy,
                                         const tuning::FinalistPolicy& finalist);

// A shape that publishes nothing because it is not complete (or its results cannot be
// compared): the reason says why.
evidence::ShapeDecision incomplete_decision(const evidence::PlannedShape& planned,
                                            std::string reason);

// Whether the decision ends the shape's part in a run and its resumes: incomplete does not
// (a resume retries what is missing).
bool is_final(const evidence::ShapeDecision& decision);

}  // namespace fhmoe::cluster
