#pragma once

// The promotion gate: does a challenger replace the incumbent? One bar for the whole tuner:
// promote iff margin_pct >= bar_pct, where bar_pct is max(min_improvement_pct, noise_pct)
// (the default) or, with PromotionPolicy::lower_bound_gate, the margin whose lower
// confidence bound (margin less the noise floor) is min_improvement_pct. The noise floor is
// a one-sided critical value at PromotionPolicy::false_promotion_rate: from the paired
// rounds of the race (race.hpp), from two independent means for --compare. --compare
// --update_improved decides through this same function (compare_plan.hpp), so the search
// and the protected re-tune can never disagree about whether a win is big enough.

#include <optional>
#include <string>
#include <string_view>

#include "fhmoe/tuning/measured.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace fhmoe::tuning {

enum class Verdict { promote, retain };

std::string_view to_string(Verdict verdict) noexcept;

struct GateDecision {
    Verdict verdict = Verdict::retain;
    // (incumbent - challenger) / incumbent * 100; absent unless both are ok.
    std::optional<double> margin_pct;
    double bar_pct = 0.0;          // promotion_bar_pct(policy, noise_floor_pct)
    double noise_floor_pct = 0.0;  // the noise_pct the gate was given
    std::string reason;            // one line for the log and the evidence archive
};

// Binary floating point cannot hold most decimal times exactly: 97.5 us -> 94.575 us is a
// 3% win that computes as 2.9999999999999947%. A margin within this relative distance
// below the bar counts as meeting it. 1e-9 of the bar is far below any timing resolution.
inline constexpr double bar_relative_tolerance = 1e-9;

// Percent by which `after_us` is faster than `before_us` (negative for a regression).
double improvement_pct(double before_us, double after_us);

// margin_pct >= bar_pct, up to bar_relative_tolerance.
bool meets_bar(double margin_pct, double bar_pct);

// `sigmas` combined standard errors of the two means, in percent of the incumbent mean:
// sigmas * sqrt(se_i^2 + se_c^2) / incumbent_mean * 100. Throws fhmoe::InternalError for a
// non-positive incumbent mean or a negative standard error. --compare's noise floor (two
// independent measurements, many iterations each, sigmas the normal quantile of the
// policy's false_promotion_rate); the race's rule before paired rounds (2 sigmas), which
// bench/decision_quality still runs as the "old rule".
double noise_floor_pct(double incumbent_mean_us, double incumbent_stderr_us,
                       double challenger_stderr_us, double sigmas);

// The noise floor of a paired comparison tested one-sided at level `alpha`:
// 100 * (1 - exp(-t * se)) with t the (1 - alpha) quantile of Student's t with rounds - 1
// degrees of freedom and se the standard error of the mean log-ratio. A margin
// (PairedComparison::margin_pct) at or above it rejects "the challenger is not faster" at
// level alpha. Throws fhmoe::InternalError for alpha outside (0, 1) or fewer than 2 rounds.
double paired_noise_floor_pct(const PairedComparison& paired, double alpha);

// The upper confidence bound of a paired margin at one-sided level `alpha`:
// 100 * (1 - exp(-(mean + t * se))), t and se as paired_noise_floor_pct. A margin whose
// upper bound is below a bar cannot be shown to clear it. Same throws.
double paired_margin_upper_bound_pct(const PairedComparison& paired, double alpha);

// The margin a challenger needs: max(min_improvement_pct, noise_pct) by default; with
// lower_bound_gate, 100 * (1 - (1 - min/100) * (1 - noise/100)), the margin whose lower
// confidence bound is min_improvement_pct (about min + noise for small values).
double promotion_bar_pct(const PromotionPolicy& policy, double noise_pct);

// - a challenger that is not ok never promotes;
// - no incumbent: promote, no margin;
// - an incumbent that is not ok (any status): promote, no margin, the reason names the status;
// - both ok: promote iff meets_bar(margin_pct, promotion_bar_pct(policy, noise_pct)), the
//   margin being `paired_margin_pct` when given (a race), improvement_pct of the two means
//   otherwise.
// Throws fhmoe::InternalError for a negative or NaN noise_pct or an ok measurement without
// a positive finite mean (check_measured).
GateDecision gate_against_incumbent(const std::optional<Measured>& incumbent,
                                    const Measured& challenger, const PromotionPolicy& policy,
                                    double noise_pct,
                                    std::optional<double> paired_margin_pct = std::nullopt);

}  // namespace fhmoe::tuning
