#pragma once

// The finalist race, pure part. The finalists and the incumbent run on one device in R
// interleaved rounds, the order rotated every round so that no contender always runs first
// (cold clocks) or last (hot device). Each round gives each contender one mean time; the
// spread of those round means across rounds is the race's noise, and it sets the gate's
// noise floor.

#include <cstddef>
#include <optional>
#include <vector>

#include "fhmoe/tuning/gate.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::tuning {

// The order in which contenders 0..n-1 run in `round`: rotated left by round % n, so over n
// rounds every contender runs once in every position. Throws fhmoe::InternalError for n = 0.
std::vector<std::size_t> race_order(std::size_t n_contenders, std::size_t round);

struct RaceContender {
    CandidateId candidate;
    bool is_incumbent = false;
    Status status = Status::ok;          // not ok when it faulted in any round
    std::vector<double> round_means_us;  // one per completed round, in round order
};

struct ContenderSummary {
    CandidateId candidate;
    bool is_incumbent = false;
    Status status = Status::not_run;
    TimingStats over_rounds;  // summarize_samples of the round means (meaningful when ok)
};

struct RaceSummary {
    std::vector<ContenderSummary> contenders;  // in input order
    std::optional<std::size_t> incumbent;      // index of the incumbent, if it raced
    std::optional<std::size_t> winner;         // choose_race_winner
    std::optional<std::size_t> challenger;     // fastest ok contender that is not the incumbent
    // Noise floor (PromotionPolicy::noise_floor_sigmas combined standard errors, in percent
    // of the incumbent's mean) between the challenger and the incumbent: present only when
    // both are ok.
    std::optional<double> noise_pct;
};

// Index of the fastest ok contender by mean over rounds; ties go to the incumbent, then to
// the smallest CandidateId::key(). None when no contender is ok.
std::optional<std::size_t> choose_race_winner(const std::vector<ContenderSummary>& contenders);

// Throws fhmoe::InternalError if more than one contender is the incumbent, if an ok
// contender has fewer than 2 rounds, or if ok contenders have different round counts (the
// rounds are interleaved: every ok contender ran in every round).
RaceSummary summarize_race(const std::vector<RaceContender>& contenders,
                           const PromotionPolicy& policy);

// The gate applied to the race: the challenger against the incumbent (or against none if
// the incumbent did not race) with the race's noise floor. None when no challenger is ok:
// then there is nothing to promote.
std::optional<GateDecision> gate_race(const RaceSummary& race, const PromotionPolicy& policy);

}  // namespace fhmoe::tuning
