#pragma once

// The prune rule of --search screen (issue #16). Inside one chunk, on one device, every
// candidate is timed briefly (a screen of n runs) and compared with two references measured
// in full in the same chunk:
//
//   incumbent_bar  the incumbent times (1 - min_improvement_pct / 100): the fastest a
//                  candidate may be and still not be promoted by any gate on this policy.
//   chunk_best     the fastest non-incumbent candidate of the chunk measured in full so far.
//
// For each reference R with threshold k * R (k = 1 - min_improvement_pct / 100 for the bar,
// 1 for chunk_best), the candidate C is pruned when the lower one-sided confidence limit of
// C - k * R is above 0:
//
//   mean_C - k * mean_R - t(1 - alpha / 2, n_C - 1) * sqrt(se_C^2 + k^2 * se_R^2) > 0
//
// alpha is SearchPolicy::screen_error_rate, split evenly over the two bounds, so a candidate
// whose true time is at or below both thresholds is pruned with probability at most alpha,
// and one at or below either threshold with at most alpha / 2 by that bound. The t quantile
// takes the screen's n_C - 1 degrees of freedom, fewer than Welch's for any reference with
// more samples, so it is conservative for the unequal variances. The reference is the
// chunk's best *fully measured* candidate, not the best screen: the minimum of many short
// screens is biased low, and pruning against it would prune more than alpha says; a full
// measurement is taken after the selection, so its mean is not.
//
// What this keeps: a pruned candidate is slower, with confidence, than what the gate could
// promote against this chunk's incumbent (it would be retained against anyway) or than a
// candidate that is fully measured and so competes for the race (it would lose the race to
// it). The published kernel is then exhaustive's unless a bound errs, at the stated rate, on
// the one candidate that would have won. The rate assumes the screen's runs time what the
// full measurement times (the screen_warmup runs before them are there for that).

#include <optional>
#include <string_view>

#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/tuning/result.hpp"

namespace fhmoe::tuning {

inline constexpr std::string_view kIncumbentBarBound = "incumbent_bar";
inline constexpr std::string_view kChunkBestBound = "chunk_best";

// The references a screen is compared with, each the full measurement of one candidate in
// the same chunk (its mean, stderr and n_kept are used). Absent when not measured ok.
struct ScreenReferences {
    std::optional<TimingStats> incumbent;
    std::optional<TimingStats> chunk_best;
};

// The verdict on one screen (`screen`: the statistics of its timed runs, n_kept >= 2).
// Without any reference nothing is pruned (the outcome is screened, not pruned, without a
// bound). prune_margin_pct is relative to the incumbent's mean, or to chunk_best's when the
// incumbent is absent. Throws fhmoe::InternalError for a screen of fewer than 2 runs or a
// non-positive mean, and for error_rate outside (0, 0.5] or a negative min_improvement_pct.
ScreenOutcome screen_verdict(const TimingStats& screen, const ScreenReferences& references,
                             double min_improvement_pct, double error_rate);

// Takes one result of the chunk into `references`: the incumbent's when it is ok, or a
// screened candidate's that survived its screen (so was measured in full) and is faster than
// chunk_best. Results of other kinds (pruned, failed, not screened) change nothing. The
// worker and the supervisor (which hands the references to a replacement worker) both
// keep them with this one rule.
void note_chunk_result(ScreenReferences& references, bool is_incumbent,
                       const CandidateResult& result);

}  // namespace fhmoe::tuning
