#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace fhmoe::tuning {
namespace {

// Six each of 10, 11, 12, 13, 14: quartiles 11 and 13 (IQR 2, fences [8, 16]) once an
// extra sample makes n = 31.
std::vector<double> thirty_spread_samples() {
    std::vector<double> samples;
    for (int i = 0; i < 30; ++i) samples.push_back(10.0 + i % 5);
    return samples;
}

TEST(QuantileLinear, InterpolatesBetweenRanksAsNumpyDoes) {
    const std::vector<double> sorted = {1.0, 2.0, 3.0, 4.0};
    EXPECT_DOUBLE_EQ(quantile_linear(sorted, 0.0), 1.0);
    EXPECT_DOUBLE_EQ(quantile_linear(sorted, 0.25), 1.75);  // numpy.percentile(.., 25)
    EXPECT_DOUBLE_EQ(quantile_linear(sorted, 0.5), 2.5);
    EXPECT_DOUBLE_EQ(quantile_linear(sorted, 0.75), 3.25);
    EXPECT_DOUBLE_EQ(quantile_linear(sorted, 1.0), 4.0);
    EXPECT_DOUBLE_EQ(quantile_linear(std::vector<double>{7.0}, 0.25), 7.0);
}

TEST(QuantileLinear, RejectsEmptyInputAndQuantilesOutsideUnitInterval) {
    EXPECT_THROW(quantile_linear(std::vector<double>{}, 0.5), InternalError);
    EXPECT_THROW(quantile_linear(std::vector<double>{1.0}, -0.1), InternalError);
    EXPECT_THROW(quantile_linear(std::vector<double>{1.0}, 1.1), InternalError);
    EXPECT_THROW(quantile_linear(std::vector<double>{1.0}, std::nan("")), InternalError);
}

TEST(SummarizeSamples, SmallUnsortedSetGivesHandComputedStatistics) {
    const std::vector<double> samples = {4.0, 1.0, 3.0, 2.0};
    const TimingStats stats = summarize_samples(samples);
    EXPECT_EQ(stats.n_raw, 4u);
    EXPECT_EQ(stats.n_kept, 4u);
    EXPECT_DOUBLE_EQ(stats.mean_us, 2.5);
    EXPECT_DOUBLE_EQ(stats.median_us, 2.5);
    // Sample variance: (2.25 + 0.25 + 0.25 + 2.25) / 3 = 5/3.
    EXPECT_DOUBLE_EQ(stats.stddev_us, std::sqrt(5.0 / 3.0));
    EXPECT_DOUBLE_EQ(stats.stderr_us, std::sqrt(5.0 / 3.0) / 2.0);
    EXPECT_DOUBLE_EQ(stats.min_us, 1.0);
    EXPECT_DOUBLE_EQ(stats.max_us, 4.0);
}

TEST(SummarizeSamples, OddCountMedianIsTheMiddleSample) {
    const TimingStats stats = summarize_samples(std::vector<double>{5.0, 9.0, 1.0});
    EXPECT_DOUBLE_EQ(stats.median_us, 5.0);
    EXPECT_DOUBLE_EQ(stats.mean_us, 5.0);
    EXPECT_DOUBLE_EQ(stats.stddev_us, 4.0);  // sqrt((16 + 16 + 0) / 2)
}

TEST(SummarizeSamples, SingleSampleHasNoSpread) {
    const TimingStats stats = summarize_samples(std::vector<double>{42.5});
    EXPECT_EQ(stats.n_raw, 1u);
    EXPECT_EQ(stats.n_kept, 1u);
    EXPECT_DOUBLE_EQ(stats.mean_us, 42.5);
    EXPECT_DOUBLE_EQ(stats.median_us, 42.5);
    EXPECT_DOUBLE_EQ(stats.min_us, 42.5);
    EXPECT_DOUBLE_EQ(stats.max_us, 42.5);
    EXPECT_EQ(stats.stddev_us, 0.0);
    EXPECT_EQ(stats.stderr_us, 0.0);
}

TEST(SummarizeSamples, OutlierIsKeptAtThirtySamples) {
    std::vector<double> samples = thirty_spread_samples();
    samples.pop_back();  // one 14 fewer: 29 samples summing to 346
    samples.push_back(100.0);
    const TimingStats stats = summarize_samples(samples);
    EXPECT_EQ(stats.n_raw, 30u);
    EXPECT_EQ(stats.n_kept, 30u);
    EXPECT_DOUBLE_EQ(stats.mean_us, 446.0 / 30.0);
    EXPECT_DOUBLE_EQ(stats.max_us, 100.0);
}

TEST(SummarizeSamples, OutlierIsDroppedAtThirtyOneSamples) {
    std::vector<double> samples = thirty_spread_samples();
    samples.insert(samples.begin() + 7, 100.0);  // position in the input must not matter
    const TimingStats stats = summarize_samples(samples);
    EXPECT_EQ(stats.n_raw, 31u);
    EXPECT_EQ(stats.n_kept, 30u);
    EXPECT_DOUBLE_EQ(stats.mean_us, 12.0);
    EXPECT_DOUBLE_EQ(stats.median_us, 12.0);
    // Deviations -2..2, six of each: sum of squares 60 over 29 degrees of freedom.
    EXPECT_DOUBLE_EQ(stats.stddev_us, std::sqrt(60.0 / 29.0));
    EXPECT_DOUBLE_EQ(stats.stderr_us, std::sqrt(60.0 / 29.0) / std::sqrt(30.0));
    EXPECT_DOUBLE_EQ(stats.min_us, 10.0);
    EXPECT_DOUBLE_EQ(stats.max_us, 14.0);
}

TEST(SummarizeSamples, LowOutlierIsDroppedToo) {
    std::vector<double> samples = thirty_spread_samples();
    samples.push_back(1.0);  // below the lower fence Q1 - 1.5 IQR = 8
    const TimingStats stats = summarize_samples(samples);
    EXPECT_EQ(stats.n_kept, 30u);
    EXPECT_DOUBLE_EQ(stats.min_us, 10.0);
}

TEST(SummarizeSamples, SampleExactlyOnTheFenceIsKept) {
    std::vector<double> samples = thirty_spread_samples();
    samples.push_back(16.0);  // Q3 + 1.5 IQR = 13 + 3
    const TimingStats stats = summarize_samples(samples);
    EXPECT_EQ(stats.n_kept, 31u);
    EXPECT_DOUBLE_EQ(stats.max_us, 16.0);
}

TEST(SummarizeSamples, RejectsEmptyInput) {
    EXPECT_THROW(summarize_samples(std::vector<double>{}), InternalError);
}

TEST(SummarizeSamples, RejectsSamplesThatAreNotDurations) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_THROW(summarize_samples(std::vector<double>{1.0, nan}), InternalError);
    EXPECT_THROW(summarize_samples(std::vector<double>{inf, 1.0}), InternalError);
    EXPECT_THROW(summarize_samples(std::vector<double>{1.0, -0.5}), InternalError);
}

TEST(SummarizeSamples, ZeroDurationIsAValidSample) {
    const TimingStats stats = summarize_samples(std::vector<double>{0.0, 2.0});
    EXPECT_DOUBLE_EQ(stats.mean_us, 1.0);
    EXPECT_DOUBLE_EQ(stats.min_us, 0.0);
}

}  // namespace
}  // namespace fhmoe::tuning
