#include "fhmoe/tuning/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fhmoe/error.hpp"

namespace fhmoe::tuning {

double quantile_linear(std::span<const double> sorted_ascending, double q) {
    FHMOE_CHECK(!sorted_ascending.empty(), "quantile of no samples");
    FHMOE_CHECK(q >= 0.0 && q <= 1.0, "quantile " + std::to_string(q) + " outside [0, 1]");
    const double position = q * static_cast<double>(sorted_ascending.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(position));
    const std::size_t upper = std::min(lower + 1, sorted_ascending.size() - 1);
    const double fraction = position - static_cast<double>(lower);
    return sorted_ascending[lower] + fraction * (sorted_ascending[upper] - sorted_ascending[lower]);
}

double median(std::span<const double> samples) {
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    return quantile_linear(sorted, 0.5);
}

namespace {

// Samples within [Q1 - k*IQR, Q3 + k*IQR], in ascending order.
std::vector<double> drop_iqr_outliers(const std::vector<double>& sorted) {
    if (sorted.size() <= outlier_min_samples_exclusive) return sorted;
    const double q1 = quantile_linear(sorted, 0.25);
    const double q3 = quantile_linear(sorted, 0.75);
    const double iqr = q3 - q1;
    const double lower_fence = q1 - outlier_iqr_k * iqr;
    const double upper_fence = q3 + outlier_iqr_k * iqr;
    std::vector<double> kept;
    kept.reserve(sorted.size());
    for (double sample : sorted) {
        if (sample >= lower_fence && sample <= upper_fence) kept.push_back(sample);
    }
    return kept;
}

}  // namespace

TimingStats summarize_samples(std::span<const double> samples_us) {
    FHMOE_CHECK(!samples_us.empty(), "no timing samples to summarize");
    for (double sample : samples_us) {
        FHMOE_CHECK(std::isfinite(sample) && sample >= 0.0,
                    "timing sample " + std::to_string(sample) + " is not a finite duration");
    }
    std::vector<double> sorted(samples_us.begin(), samples_us.end());
    std::sort(sorted.begin(), sorted.end());
    // The middle half always survives the fences, so kept is never empty.
    const std::vector<double> kept = drop_iqr_outliers(sorted);

    const auto n = static_cast<double>(kept.size());
    double sum = 0.0;
    for (double sample : kept) sum += sample;
    const double mean = sum / n;
    double squared_deviations = 0.0;
    for (double sample : kept) squared_deviations += (sample - mean) * (sample - mean);
    const double stddev = kept.size() > 1 ? std::sqrt(squared_deviations / (n - 1.0)) : 0.0;

    TimingStats stats;
    stats.n_raw = static_cast<std::uint32_t>(samples_us.size());
    stats.n_kept = static_cast<std::uint32_t>(kept.size());
    stats.mean_us = mean;
    stats.median_us = quantile_linear(kept, 0.5);
    stats.stddev_us = stddev;
    stats.stderr_us = stddev / std::sqrt(n);
    stats.min_us = kept.front();
    stats.max_us = kept.back();
    return stats;
}

namespace {

// Continued fraction of the regularized incomplete beta function (modified Lentz), valid and
// fast for x < (a + 1) / (a + b + 2); the caller uses the symmetry I_x(a,b) = 1 - I_1-x(b,a)
// otherwise.
double beta_continued_fraction(double a, double b, double x) {
    constexpr double tiny = 1e-300;
    constexpr double epsilon = 1e-15;
    constexpr int max_terms = 10000;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    if (std::abs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double fraction = d;
    for (int m = 1; m <= max_terms; ++m) {
        const double m2 = 2.0 * m;
        double numerator = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + numerator * d;
        if (std::abs(d) < tiny) d = tiny;
        c = 1.0 + numerator / c;
        if (std::abs(c) < tiny) c = tiny;
        d = 1.0 / d;
        fraction *= d * c;
        numerator = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + numerator * d;
        if (std::abs(d) < tiny) d = tiny;
        c = 1.0 + numerator / c;
        if (std::abs(c) < tiny) c = tiny;
        d = 1.0 / d;
        const double step = d * c;
        fraction *= step;
        if (std::abs(step - 1.0) < epsilon) return fraction;
    }
    throw InternalError("the incomplete beta continued fraction did not converge");
}

double regularized_incomplete_beta(double a, double b, double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    const double log_front =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(log_front);
    if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
    return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

// The x in [lo, hi] where the increasing `cdf` reaches p, by bisection: slow but certain,
// and a decision computes a handful of quantiles.
template <typename Cdf>
double invert_increasing(const Cdf& cdf, double p, double lo, double hi) {
    while (cdf(hi) < p) {
        lo = hi;
        hi *= 2.0;
    }
    for (int step = 0; step < 200 && hi - lo > 1e-12 * std::max(1.0, std::abs(hi)); ++step) {
        const double middle = 0.5 * (lo + hi);
        (cdf(middle) < p ? lo : hi) = middle;
    }
    return 0.5 * (lo + hi);
}

void check_probability(double p) {
    FHMOE_CHECK(p > 0.0 && p < 1.0, "probability " + std::to_string(p) + " outside (0, 1)");
}

}  // namespace

double student_t_cdf(double t, int dof) {
    FHMOE_CHECK(dof >= 1, "t distribution with " + std::to_string(dof) + " degrees of freedom");
    FHMOE_CHECK(!std::isnan(t), "t distribution at NaN");
    if (std::isinf(t)) return t > 0.0 ? 1.0 : 0.0;
    const double nu = static_cast<double>(dof);
    const double tail = 0.5 * regularized_incomplete_beta(0.5 * nu, 0.5, nu / (nu + t * t));
    return t > 0.0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, int dof) {
    FHMOE_CHECK(dof >= 1, "t distribution with " + std::to_string(dof) + " degrees of freedom");
    check_probability(p);
    if (p == 0.5) return 0.0;
    // Symmetric: invert the upper half and mirror, so both tails get the same precision.
    const double upper = std::max(p, 1.0 - p);
    const double t =
        invert_increasing([dof](double x) { return student_t_cdf(x, dof); }, upper, 0.0, 8.0);
    return p > 0.5 ? t : -t;
}

double normal_quantile(double p) {
    check_probability(p);
    if (p == 0.5) return 0.0;
    const double upper = std::max(p, 1.0 - p);
    const double z = invert_increasing(
        [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }, upper, 0.0, 8.0);
    return p > 0.5 ? z : -z;
}

PairedComparison compare_paired(std::span<const double> incumbent_round_means_us,
                                std::span<const double> challenger_round_means_us) {
    const std::size_t n = incumbent_round_means_us.size();
    FHMOE_CHECK(n == challenger_round_means_us.size(),
                "paired comparison of " + std::to_string(n) + " and " +
                    std::to_string(challenger_round_means_us.size()) + " rounds");
    FHMOE_CHECK(n >= 2, "paired comparison of " + std::to_string(n) + " round(s); 2 needed");
    std::vector<double> log_ratios(n);
    for (std::size_t round = 0; round < n; ++round) {
        const double incumbent = incumbent_round_means_us[round];
        const double challenger = challenger_round_means_us[round];
        FHMOE_CHECK(std::isfinite(incumbent) && incumbent > 0.0 && std::isfinite(challenger) &&
                        challenger > 0.0,
                    "round " + std::to_string(round) + " means " + std::to_string(incumbent) +
                        " and " + std::to_string(challenger) + " us are not positive times");
        log_ratios[round] = std::log(incumbent / challenger);
    }
    double sum = 0.0;
    for (double value : log_ratios) sum += value;
    const double mean = sum / static_cast<double>(n);
    double squared_deviations = 0.0;
    for (double value : log_ratios) squared_deviations += (value - mean) * (value - mean);

    PairedComparison paired;
    paired.rounds = n;
    paired.mean_log_ratio = mean;
    paired.stddev_log_ratio = std::sqrt(squared_deviations / static_cast<double>(n - 1));
    paired.stderr_log_ratio = paired.stddev_log_ratio / std::sqrt(static_cast<double>(n));
    paired.margin_pct = -std::expm1(-mean) * 100.0;
    return paired;
}

double one_sided_p_value(const PairedComparison& paired) {
    FHMOE_CHECK(paired.rounds >= 2, "p-value of fewer than 2 rounds");
    if (paired.stderr_log_ratio == 0.0) {
        if (paired.mean_log_ratio == 0.0) return 0.5;
        return paired.mean_log_ratio > 0.0 ? 0.0 : 1.0;
    }
    const double t = paired.mean_log_ratio / paired.stderr_log_ratio;
    return 1.0 - student_t_cdf(t, static_cast<int>(paired.rounds) - 1);
}

}  // namespace fhmoe::tuning
