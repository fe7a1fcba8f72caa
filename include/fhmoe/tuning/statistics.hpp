#pragma once

// Summary statistics of timed iterations, with aiter's outlier rule (run_perftest /
// get_trace_perf): IQR fences at k = 1.5, applied only to more than 30 samples, quartiles by
// numpy's default (linear) interpolation. Matching that rule keeps our "us" comparable with
// the numbers in aiter's tuned CSVs.

#include <cstddef>
#include <optional>
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

// The middle of the samples, in any order: for an even count the mean of the two middle ones
// (numpy.median), no outlier rule. The bench programs' medians, so that they all mean one thing.
// Throws fhmoe::InternalError on no samples.
double median(std::span<const double> samples);

// n_raw, then (after the outlier rule) n_kept, mean, median, sample stddev (n - 1), standard
// error (stddev / sqrt(n_kept)), min and max of the kept samples.
// A single kept sample has stddev and stderr 0: one sample says nothing about spread, and
// the policy (iters >= 1, rounds >= 2) decides whether that can happen.
// Throws fhmoe::InternalError on empty input or on a negative, NaN or infinite sample: a
// timing loop that produced none, or produced one of those, is a bug, not a measurement.
TimingStats summarize_samples(std::span<const double> samples_us);

// The distributions a decision is tested against. Computed, not tabulated, so that any
// number of rounds gets its exact quantile: the t distribution's CDF through the regularized
// incomplete beta function (continued fraction), its quantile by bisection to 1e-12.

// P(T <= t) for Student's t with `dof` degrees of freedom. Throws fhmoe::InternalError for
// dof < 1 or a NaN t.
double student_t_cdf(double t, int dof);

// The p-quantile of Student's t with `dof` degrees of freedom, p in (0, 1): the t critical
// value of a one-sided test at level 1 - p. Throws fhmoe::InternalError for dof < 1 or p
// outside (0, 1).
double student_t_quantile(double p, int dof);

// The p-quantile of the standard normal distribution, p in (0, 1) (the t quantile's limit
// for unbounded degrees of freedom). Throws fhmoe::InternalError for p outside (0, 1).
double normal_quantile(double p);

// Two contenders timed in the same interleaved rounds, compared round by round: the log of
// incumbent / challenger in each round. Noise that hits every contender of a round alike (a
// neighbour's load, a clock change, a thermal step) cancels in the ratio, so the spread of
// these ratios is the noise that can actually fake a win, and a t test on their mean is exact
// when they are independent and normal (log-normal round means).
struct PairedComparison {
    std::size_t rounds = 0;
    double mean_log_ratio = 0.0;    // mean over rounds of ln(incumbent / challenger)
    double stddev_log_ratio = 0.0;  // sample standard deviation (n - 1)
    double stderr_log_ratio = 0.0;  // stddev / sqrt(rounds)
    // 100 * (1 - exp(-mean_log_ratio)): how much faster the challenger is, in percent of the
    // incumbent's time (the geometric mean of the per-round ratios).
    double margin_pct = 0.0;
};

// The paired comparison of two equally long, round-aligned sequences of round means (at
// least 2 rounds, every value finite and > 0). Throws fhmoe::InternalError otherwise.
PairedComparison compare_paired(std::span<const double> incumbent_round_means_us,
                                std::span<const double> challenger_round_means_us);

// The one-sided p-value of "the challenger is not faster" (mean log ratio <= 0) under a t
// test with rounds - 1 degrees of freedom. 0.5 when the ratios do not vary and their mean is
// 0; 0 when they do not vary and the mean is positive, 1 when it is negative.
double one_sided_p_value(const PairedComparison& paired);

}  // namespace fhmoe::tuning
