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

}  // namespace fhmoe::tuning
