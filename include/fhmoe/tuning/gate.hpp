#pragma once

// The promotion gate: does a challenger replace the incumbent? One bar for the whole tuner:
// promote iff margin_pct >= max(min_improvement_pct, noise_pct). --compare
// --update_improved decides through this same function (compare_plan.hpp), so the search
// and the protected re-tune can never disagree about whether a win is big enough.

#include <optional>
#include <string>
#include <string_view>

#include "fhmoe/tuning/measured.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::tuning {

enum class Verdict { promote, retain };

std::string_view to_string(Verdict verdict) noexcept;

struct GateDecision {
    Verdict verdict = Verdict::retain;
    // (incumbent - challenger) / incumbent * 100; absent unless both are ok.
    std::optional<double> margin_pct;
    double bar_pct = 0.0;          // max(min_improvement_pct, noise_floor_pct)
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
// non-positive incumbent mean or a negative standard error.
double noise_floor_pct(double incumbent_mean_us, double incumbent_stderr_us,
                       double challenger_stderr_us, double sigmas);

// - a challenger that is not ok never promotes;
// - no incumbent: promote, no margin;
// - an incumbent that is not ok (any status): promote, no margin, the reason names the status;
// - both ok: promote iff meets_bar(margin_pct, max(min_improvement_pct, noise_pct)).
// Throws fhmoe::InternalError for a negative or NaN noise_pct or an ok measurement without
// a positive finite mean (check_measured).
GateDecision gate_against_incumbent(const std::optional<Measured>& incumbent,
                                    const Measured& challenger, const PromotionPolicy& policy,
                                    double noise_pct);

}  // namespace fhmoe::tuning
