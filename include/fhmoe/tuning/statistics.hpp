#pragma once

// Summary statistics of timed iterations, with aiter's outlier rule (run_perftest /
// get_trace_perf): IQR fences at k = 1.5, applied only to more than 30 samples, quartiles by
// numpy's default (linear) interpolation. Matching that rule keeps our "us" comparable with
// the numbers in aiter's tuned CSVs.

#include <cstddef>
#include <span>

#include "fhmoe/tuning/result.hpp"

namespace fhmoe::tuning {

// aiter's constants. They define what a reported time means, so they are not tunables.
inline constexpr double outlier_iqr_k = 1.5;
inline constexpr std::size_t outlier_min_samples_exclusive = 30;  // rule applies when n > 30

// The q-th quantile (q in [0, 1]) of an ascending, non-empty sequence, interpolated linearly
// between the two nearest ranks as numpy.percentile does by default.
// Throws fhmoe::InternalError on empty input or q outside [0, 1].
double quantile_linear(std::span<const double> sorted_ascending, double q);

// n_raw, then (after the outlier rule) n_kept, mean, median, sample stddev (n - 1), standard
// error (stddev / sqrt(n_kept)), min and max of the kept samples.
// A single kept sample has stddev and stderr 0: one sample says nothing about spread, and
// the policy (iters >= 1, rounds >= 2) decides whether that can happen.
// Throws fhmoe::InternalError on empty input or on a negative, NaN or infinite sample: a
// timing loop that produced none, or produced one of those, is a bug, not a measurement.
TimingStats summarize_samples(std::span<const double> samples_us);

}  // namespace fhmoe::tuning
