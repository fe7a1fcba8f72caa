#include "fhmoe/tuning/gate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::tuning {

std::string_view to_string(Verdict verdict) noexcept {
    return verdict == Verdict::promote ? "promote" : "retain";
}

double improvement_pct(double before_us, double after_us) {
    return (before_us - after_us) / before_us * 100.0;
}

bool meets_bar(double margin_pct, double bar_pct) {
    return margin_pct >= bar_pct - bar_relative_tolerance * std::abs(bar_pct);
}

double noise_floor_pct(double incumbent_mean_us, double incumbent_stderr_us,
                       double challenger_stderr_us, double sigmas) {
    FHMOE_CHECK(incumbent_mean_us > 0.0, "noise floor of a non-positive incumbent mean");
    FHMOE_CHECK(incumbent_stderr_us >= 0.0 && challenger_stderr_us >= 0.0,
                "noise floor of a negative standard error");
    const double combined = std::sqrt(incumbent_stderr_us * incumbent_stderr_us +
                                      challenger_stderr_us * challenger_stderr_us);
    return sigmas * combined / incumbent_mean_us * 100.0;
}

namespace {

double paired_t_critical(const PairedComparison& paired, double alpha) {
    FHMOE_CHECK(alpha > 0.0 && alpha < 1.0, "alpha " + std::to_string(alpha) + " outside (0, 1)");
    FHMOE_CHECK(paired.rounds >= 2, "confidence bound of fewer than 2 paired rounds");
    return student_t_quantile(1.0 - alpha, static_cast<int>(paired.rounds) - 1);
}

}  // namespace

double paired_noise_floor_pct(const PairedComparison& paired, double alpha) {
    const double t = paired_t_critical(paired, alpha);
    return -std::expm1(-t * paired.stderr_log_ratio) * 100.0;
}

double paired_margin_upper_bound_pct(const PairedComparison& paired, double alpha) {
    const double t = paired_t_critical(paired, alpha);
    return -std::expm1(-(paired.mean_log_ratio + t * paired.stderr_log_ratio)) * 100.0;
}

double promotion_bar_pct(const PromotionPolicy& policy, double noise_pct) {
    if (!policy.lower_bound_gate) return std::max(policy.min_improvement_pct, noise_pct);
    // 100 * (1 - (1 - min/100) * (1 - noise/100)), expanded so that a zero floor gives min
    // exactly.
    const double minimum = policy.min_improvement_pct;
    return minimum + noise_pct - minimum * noise_pct / 100.0;
}

namespace {

std::string percent(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f%%", value);
    return text;
}

}  // namespace

GateDecision gate_against_incumbent(const std::optional<Measured>& incumbent,
                                    const Measured& challenger, const PromotionPolicy& policy,
                                    double noise_pct, std::optional<double> paired_margin_pct) {
    FHMOE_CHECK(noise_pct >= 0.0, "noise_pct " + std::to_string(noise_pct) + " is not >= 0");
    check_measured(challenger, "challenger");
    if (incumbent) check_measured(*incumbent, "incumbent");

    GateDecision decision;
    decision.noise_floor_pct = noise_pct;
    decision.bar_pct = promotion_bar_pct(policy, noise_pct);

    if (challenger.status != Status::ok) {
        decision.verdict = Verdict::retain;
        decision.reason =
            "challenger status '" + std::string(to_string(challenger.status)) + "' never promotes";
        return decision;
    }
    if (!incumbent) {
        decision.verdict = Verdict::promote;
        decision.reason = "no incumbent was measured";
        return decision;
    }
    if (incumbent->status != Status::ok) {
        decision.verdict = Verdict::promote;
        decision.reason = "incumbent status '" + std::string(to_string(incumbent->status)) +
                          "': any ok challenger replaces it";
        return decision;
    }
    const double margin =
        paired_margin_pct.value_or(improvement_pct(incumbent->mean_us, challenger.mean_us));
    decision.margin_pct = margin;
    const bool promote = meets_bar(margin, decision.bar_pct);
    decision.verdict = promote ? Verdict::promote : Verdict::retain;
    decision.reason = "margin " + percent(margin) + (promote ? " meets" : " is below") +
                      " the bar " + percent(decision.bar_pct) + " (" +
                      (policy.lower_bound_gate ? "lower bound: " : "") + "min_improvement " +
                      percent(policy.min_improvement_pct) + ", noise floor " + percent(noise_pct) +
                      ")";
    return decision;
}

}  // namespace fhmoe::tuning
