#pragma once

// The finalist race, pure part. The finalists and the incumbent run on one device in R
// interleaved rounds, the order rotated every round so that no contender always runs first
// (cold clocks) or last (hot device). Each round gives each contender one mean time.
//
// The analysis is paired: each finalist is compared with the incumbent round by round (the
// log of incumbent / finalist in the same round, statistics.hpp compare_paired), so noise
// common to a round (load on the host, clocks, temperature) cancels and only the noise that
// can fake a win sets the noise floor. The challenger is the finalist with the largest
// paired margin. Picking the best of m finalists with the very samples that then gate it
// would promote a finalist that is not truly faster about m times as often as one test
// would, so each finalist is tested at false_promotion_rate / m (Bonferroni over the
// finalists that finished the race ok; for the one hypothesis that can lead to a promotion
// it is Holm's first step). The noise floor is then the one-sided t critical value for the
// rounds actually run, times the standard error of the paired log-ratios. A fresh
// confirmation race between the chosen finalist and the incumbent would not pay the 1/m,
// but it costs a second race per shape and a second phase in the coordinator; the
// correction costs nothing but some power at few rounds (docs/performance.md has both
// rules' rates).
//
// Adaptive rounds (a sequential test, issue #14). The race runs in batches of
// FinalistPolicy::rounds rounds up to max_rounds and is analysed after each batch: a "look"
// (race_looks). It stops at the first look where the gate promotes, or where even the upper
// confidence bound of every finalist's margin is below min_improvement_pct (no finalist can
// still clear the bar: retain); the last look decides whatever it shows. Looking K times at
// growing samples gives a promotion K chances, so the false_promotion_rate is split evenly
// over the looks (Bonferroni over looks, the repeated-confidence-interval rule of Jennison
// and Turnbull): look k tests each of m finalists at false_promotion_rate / (K m). By the
// union bound over all K m tests, the race promotes a finalist that is not truly faster with
// probability at most false_promotion_rate, whatever the stopping rule did, as long as each
// single test is exact (paired log-ratios independent and normal across rounds). Stopping to
// retain never adds a promotion, so it cannot raise that rate. An even split is simpler and
// more conservative than Pocock's or O'Brien-Fleming's boundaries (which use the correlation
// between looks); bench/decision_quality measures what it gives away. With max_rounds ==
// rounds there is one look and the rule is the fixed race above.
//
// What the correction does not fix: the challenger's time (and so the published us) is the
// mean of the samples it was picked on, biased low by the selection among m finalists
// (under ~1 standard error of a round mean divided by sqrt(rounds) for near-tied finalists).

#include <cstddef>
#include <optional>
#include <vector>

#include "fhmoe/tuning/gate.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::tuning {

// The order in which contenders 0..n-1 run in `round`: rotated left by round % n, so over n
// rounds every contender runs once in every position. Throws fhmoe::InternalError for n = 0.
std::vector<std::size_t> race_order(std::size_t n_contenders, std::size_t round);

// A contender's round means from the timed samples of each of its rounds (the mean of
// summarize_samples, with aiter's outlier rule), skipping rounds it did not run.
std::vector<double> round_means_of(const std::vector<std::vector<double>>& samples_per_round);

struct RaceContender {
    CandidateId candidate;
    bool is_incumbent = false;
    Status status = Status::ok;          // not ok when it faulted in any round
    std::vector<double> round_means_us;  // one per completed round, in round order
};

// The round counts after which a race is analysed: rounds, 2 rounds, 3 rounds, ... while
// below max_rounds, then max_rounds. Throws fhmoe::InternalError for rounds < 2 or
// max_rounds < rounds (validate() rejects both first).
std::vector<std::size_t> race_looks(const FinalistPolicy& policy);

struct ContenderSummary {
    CandidateId candidate;
    bool is_incumbent = false;
    Status status = Status::not_run;
    TimingStats over_rounds;  // summarize_samples of the round means (meaningful when ok)
    // Round by round against the incumbent: present for an ok finalist when the incumbent
    // raced ok.
    std::optional<PairedComparison> versus_incumbent;
    // The upper confidence bound of versus_incumbent's margin, in percent, at the race's
    // alpha_per_finalist (100 * (1 - exp(-(mean + t * se)))): below min_improvement_pct, the
    // finalist cannot clear the bar however long it races.
    std::optional<double> margin_upper_pct;
};

struct RaceSummary {
    std::vector<ContenderSummary> contenders;  // in input order
    std::optional<std::size_t> incumbent;      // index of the incumbent, if it raced
    std::optional<std::size_t> fastest;        // fastest_contender
    // The ok finalist with the largest paired margin over the incumbent when the incumbent
    // raced ok (ties to the faster mean, then the smaller key); otherwise the fastest ok
    // contender that is not the incumbent.
    std::optional<std::size_t> challenger;
    // Finalists (ok contenders other than the incumbent) the challenger was picked among,
    // and the one-sided level each is tested at: false_promotion_rate / compared_finalists.
    std::size_t compared_finalists = 0;
    double alpha_per_finalist = 0.0;
    // Rounds every ok contender ran, and the look they are analysed at: the last of `looks`
    // (race_looks) not beyond them. look_rate is false_promotion_rate / looks.size(), the
    // share of the rate this look spends; alpha_per_finalist is look_rate / finalists.
    std::size_t rounds = 0;
    std::size_t look = 0;
    std::vector<std::size_t> looks;
    double look_rate = 0.0;
    // paired_noise_floor_pct of the challenger at alpha_per_finalist, in percent: present
    // only when the challenger and the incumbent are both ok.
    std::optional<double> noise_pct;
};

// Index of the fastest ok contender by mean over rounds; ties go to the incumbent, then to
// the smallest CandidateId::key(). None when no contender is ok.
std::optional<std::size_t> fastest_contender(const std::vector<ContenderSummary>& contenders);

// `looks` as race_looks gives them (the policy the race ran under). Throws
// fhmoe::InternalError if more than one contender is the incumbent, if an ok contender has
// fewer than 2 rounds, if ok contenders have different round counts (the rounds are
// interleaved: every ok contender ran in every round) or if `looks` is empty.
RaceSummary summarize_race(const std::vector<RaceContender>& contenders,
                           const PromotionPolicy& policy, const std::vector<std::size_t>& looks);

// The gate applied to the race: the challenger's paired margin against the incumbent (or
// the challenger against none if the incumbent did not race) with the race's noise floor.
// None when no challenger is ok: then there is nothing to promote.
std::optional<GateDecision> gate_race(const RaceSummary& race, const PromotionPolicy& policy);

// Whether the race runs another batch of rounds after this look: only when it is not at its
// last look, the incumbent and at least one finalist are still ok, the gate does not promote
// now, and some ok finalist's margin_upper_pct is still at or above min_improvement_pct.
// When the incumbent did not race ok there is nothing to pair with: the race decides now.
bool race_needs_more_rounds(const RaceSummary& race, const PromotionPolicy& policy);

}  // namespace fhmoe::tuning
