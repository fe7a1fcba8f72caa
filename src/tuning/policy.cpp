#include "fhmoe/tuning/policy.hpp"

#include <cmath>
#include <sstream>
#include <utility>

namespace fhmoe::tuning {

TuningPolicy default_policy() { return TuningPolicy{}; }

std::string_view to_string(SearchMode mode) noexcept {
    return mode == SearchMode::screen ? "screen" : "exhaustive";
}

std::optional<SearchMode> search_mode_from_string(std::string_view text) noexcept {
    if (text == "screen") return SearchMode::screen;
    if (text == "exhaustive") return SearchMode::exhaustive;
    return std::nullopt;
}

std::vector<NamedPolicyValue> named_policy_values(const TuningPolicy& policy) {
    const MeasurementPolicy& m = policy.measurement;
    return {
        {"warmup", static_cast<double>(m.warmup)},
        {"iters", static_cast<double>(m.iters)},
        {"errRatio", m.err_ratio},
        {"rtol", m.rtol},
        {"atol", m.atol},
        {"max_cosine_distance", m.max_cosine_distance},
        {"timeout", m.timeout_s},
        {"rotate_inputs", m.rotate_inputs ? 1.0 : 0.0, true, true},
        {"graph_replay", m.graph_replay ? 1.0 : 0.0, true, true},
        {"batch", static_cast<double>(policy.run.batch), false},
        {"min_improvement_pct", policy.promotion.min_improvement_pct},
        {"false_promotion_rate", policy.promotion.false_promotion_rate},
        {"lower_bound_gate", policy.promotion.lower_bound_gate ? 1.0 : 0.0, true, true},
        {"finalists", static_cast<double>(policy.finalist.finalists)},
        {"rounds", static_cast<double>(policy.finalist.rounds)},
        {"max_rounds", static_cast<double>(policy.finalist.max_rounds)},
        // --search: screen 1, exhaustive 0 (a number, as every /policy row is).
        {"search", policy.search.mode == SearchMode::screen ? 1.0 : 0.0, true, false,
         std::string(to_string(policy.search.mode))},
        {"screen_warmup", static_cast<double>(policy.search.screen_warmup)},
        {"screen_iters", static_cast<double>(policy.search.screen_iters)},
        {"screen_error_rate", policy.search.screen_error_rate},
    };
}

namespace {

std::string policy_message(const std::string& field, const std::string& flag,
                           const std::string& reason) {
    std::string message = "policy field '" + field + "'";
    if (!flag.empty()) message += " (" + flag + ")";
    return message + ": " + reason;
}

template <typename Value>
std::string number(Value value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

template <typename Value>
std::string got(Value value) {
    return "got " + number(value);
}

void require_at_least(int value, int minimum, const char* field, const char* flag) {
    if (value < minimum) {
        throw PolicyError(field, flag, "must be at least " + number(minimum) + ", " + got(value));
    }
}

// NaN fails every comparison, so "!(value >= minimum)" also rejects it.
void require_finite_at_least(double value, double minimum, const char* field, const char* flag) {
    if (!(value >= minimum) || !std::isfinite(value)) {
        throw PolicyError(field, flag,
                          "must be finite and at least " + number(minimum) + ", " + got(value));
    }
}

}  // namespace

PolicyError::PolicyError(std::string field, std::string flag, const std::string& reason)
    : Error(policy_message(field, flag, reason)),
      field_(std::move(field)),
      flag_(std::move(flag)) {}

void validate(const TuningPolicy& policy) {
    const MeasurementPolicy& measurement = policy.measurement;
    require_at_least(measurement.warmup, 0, "measurement.warmup", "--warmup");
    require_at_least(measurement.iters, 1, "measurement.iters", "--iters");
    if (!(measurement.err_ratio >= 0.0 && measurement.err_ratio <= 1.0)) {
        throw PolicyError("measurement.err_ratio", "--errRatio",
                          "must be within [0, 1], " + got(measurement.err_ratio));
    }
    require_finite_at_least(measurement.rtol, 0.0, "measurement.rtol", "--rtol");
    require_finite_at_least(measurement.atol, 0.0, "measurement.atol", "--atol");
    require_finite_at_least(measurement.max_cosine_distance, 0.0, "measurement.max_cosine_distance",
                            "--max_cosine_distance");
    if (!(measurement.timeout_s > 0.0) || !std::isfinite(measurement.timeout_s)) {
        throw PolicyError(
            "measurement.timeout_s", "--timeout",
            "must be a finite number of seconds above 0, " + got(measurement.timeout_s));
    }
    require_at_least(policy.run.batch, 1, "run.batch", "--batch");
    require_finite_at_least(policy.promotion.min_improvement_pct, 0.0,
                            "promotion.min_improvement_pct", "--min_improvement_pct");
    const double rate = policy.promotion.false_promotion_rate;
    if (!(rate > 0.0 && rate <= 0.5)) {
        throw PolicyError("promotion.false_promotion_rate", "--false_promotion_rate",
                          "must be within (0, 0.5], " + got(rate));
    }
    require_at_least(policy.finalist.finalists, 1, "finalist.finalists", "--finalists");
    require_at_least(policy.finalist.rounds, 2, "finalist.rounds", "--rounds");
    if (policy.finalist.max_rounds < policy.finalist.rounds) {
        throw PolicyError("finalist.max_rounds", "--max_rounds",
                          "must be at least --rounds (" + number(policy.finalist.rounds) + "), " +
                              got(policy.finalist.max_rounds));
    }
    require_at_least(policy.search.screen_warmup, 0, "search.screen_warmup", "--screen_warmup");
    require_at_least(policy.search.screen_iters, 2, "search.screen_iters", "--screen_iters");
    const double screen_rate = policy.search.screen_error_rate;
    if (!(screen_rate > 0.0 && screen_rate <= 0.5)) {
        throw PolicyError("search.screen_error_rate", "--screen_error_rate",
                          "must be within (0, 0.5], " + got(screen_rate));
    }
}

}  // namespace fhmoe::tuning
