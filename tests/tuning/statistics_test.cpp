#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
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

TEST(Median, MiddleOfUnsortedSamplesMeanOfTheTwoForAnEvenCount) {
    EXPECT_DOUBLE_EQ(median(std::vector<double>{3.0, 1.0, 2.0}), 2.0);
    EXPECT_DOUBLE_EQ(median(std::vector<double>{4.0, 1.0, 10.0, 2.0}), 3.0);  // numpy.median
    EXPECT_DOUBLE_EQ(median(std::vector<double>{5.5}), 5.5);
    // No outlier rule: one huge sample of 31 moves nothing but its rank.
    std::vector<double> samples = thirty_spread_samples();
    samples.push_back(1e6);
    EXPECT_DOUBLE_EQ(median(samples), 12.0);
    EXPECT_THROW(median(std::vector<double>{}), InternalError);
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

// Closed forms: one degree of freedom is the Cauchy distribution, two have
// t = (2p - 1) / sqrt(2 p (1 - p)).
TEST(StudentT, QuantileMatchesTheClosedFormsForOneAndTwoDegreesOfFreedom) {
    const double pi = std::acos(-1.0);
    for (const double p : {0.6, 0.9, 0.95, 0.975, 0.99, 0.9975, 0.01}) {
        EXPECT_NEAR(student_t_quantile(p, 1), std::tan(pi * (p - 0.5)),
                    1e-9 * std::max(1.0, std::abs(std::tan(pi * (p - 0.5)))))
            << p;
        EXPECT_NEAR(student_t_quantile(p, 2), (2.0 * p - 1.0) / std::sqrt(2.0 * p * (1.0 - p)),
                    1e-9)
            << p;
    }
}

// Values of any printed t table (to its 3 decimals).
TEST(StudentT, QuantileMatchesPrintedTables) {
    EXPECT_NEAR(student_t_quantile(0.975, 4), 2.776, 5e-4);
    EXPECT_NEAR(student_t_quantile(0.95, 4), 2.132, 5e-4);
    EXPECT_NEAR(student_t_quantile(0.99, 4), 3.747, 5e-4);
    EXPECT_NEAR(student_t_quantile(0.995, 8), 3.355, 5e-4);
    EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042, 5e-4);
    EXPECT_NEAR(student_t_quantile(0.999, 10), 4.144, 5e-4);
    EXPECT_DOUBLE_EQ(student_t_quantile(0.5, 3), 0.0);
    EXPECT_DOUBLE_EQ(student_t_quantile(0.05, 6), -student_t_quantile(0.95, 6));
}

TEST(StudentT, CdfInvertsTheQuantileAndApproachesTheNormal) {
    for (const int dof : {1, 2, 4, 8, 29, 200}) {
        for (const double p : {0.001, 0.2, 0.5, 0.8, 0.95, 0.99, 0.9999}) {
            EXPECT_NEAR(student_t_cdf(student_t_quantile(p, dof), dof), p, 1e-10)
                << dof << " " << p;
        }
    }
    EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
    EXPECT_NEAR(normal_quantile(0.99), 2.326348, 1e-6);
    EXPECT_NEAR(student_t_quantile(0.975, 100000), normal_quantile(0.975), 1e-4);
    EXPECT_GT(student_t_quantile(0.975, 4), student_t_quantile(0.975, 8));
}

TEST(StudentT, RejectsImpossibleArguments) {
    EXPECT_THROW(student_t_quantile(0.0, 4), InternalError);
    EXPECT_THROW(student_t_quantile(1.0, 4), InternalError);
    EXPECT_THROW(student_t_quantile(0.9, 0), InternalError);
    EXPECT_THROW(student_t_cdf(std::nan(""), 4), InternalError);
    EXPECT_THROW(normal_quantile(1.0), InternalError);
}

TEST(ComparePaired, IsTheMeanAndSpreadOfThePerRoundLogRatios) {
    const std::vector<double> incumbent = {100.0, 130.0, 80.0};
    const std::vector<double> challenger = {90.0, 120.0, 75.0};
    const PairedComparison paired = compare_paired(incumbent, challenger);
    const double r0 = std::log(100.0 / 90.0);
    const double r1 = std::log(130.0 / 120.0);
    const double r2 = std::log(80.0 / 75.0);
    const double mean = (r0 + r1 + r2) / 3.0;
    const double variance =
        ((r0 - mean) * (r0 - mean) + (r1 - mean) * (r1 - mean) + (r2 - mean) * (r2 - mean)) / 2.0;
    EXPECT_EQ(paired.rounds, 3U);
    EXPECT_NEAR(paired.mean_log_ratio, mean, 1e-15);
    EXPECT_NEAR(paired.stddev_log_ratio, std::sqrt(variance), 1e-15);
    EXPECT_NEAR(paired.stderr_log_ratio, std::sqrt(variance / 3.0), 1e-15);
    EXPECT_NEAR(paired.margin_pct, (1.0 - std::exp(-mean)) * 100.0, 1e-12);
}

// Round noise shared by both contenders cancels: the ratio is 100/95 in every round however
// much the rounds themselves move.
TEST(ComparePaired, CommonModeRoundNoiseCancels) {
    std::vector<double> incumbent;
    std::vector<double> challenger;
    for (const double load : {1.0, 1.4, 0.8, 1.1, 0.9}) {
        incumbent.push_back(100.0 * load);
        challenger.push_back(95.0 * load);
    }
    const PairedComparison paired = compare_paired(incumbent, challenger);
    EXPECT_NEAR(paired.margin_pct, 5.0, 1e-9);
    EXPECT_NEAR(paired.stderr_log_ratio, 0.0, 1e-12);
    EXPECT_DOUBLE_EQ(one_sided_p_value(paired), 0.0);
}

TEST(ComparePaired, RejectsMisalignedShortOrNonPositiveRounds) {
    EXPECT_THROW(compare_paired(std::vector<double>{1, 2}, std::vector<double>{1, 2, 3}),
                 InternalError);
    EXPECT_THROW(compare_paired(std::vector<double>{1}, std::vector<double>{1}), InternalError);
    EXPECT_THROW(compare_paired(std::vector<double>{1, 0}, std::vector<double>{1, 1}),
                 InternalError);
    EXPECT_THROW(compare_paired(std::vector<double>{1, 1}, std::vector<double>{1, std::nan("")}),
                 InternalError);
}

// Box-Muller on a fixed generator, so that the draws are the same on every standard
// library (std::normal_distribution's algorithm is implementation-defined).
double standard_normal(std::mt19937_64& random) {
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double u1 = 1.0 - uniform(random);  // in (0, 1]
    const double u2 = uniform(random);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::acos(-1.0) * u2);
}

// With no true difference, a paired test at level alpha rejects in about alpha of the races
// at every round count: 4000 seeded races per case, so the binomial standard error at 5% is
// 0.34% and the interval below is more than 5 of them wide on each side. A 2-sigma normal
// cut-off (the rule before the t quantile) rejects 9.2% at 2 rounds, outside it.
TEST(OneSidedPValue, HasTheNominalFalseRejectionRateUnderTheNull) {
    std::mt19937_64 random(20261202);
    constexpr int races = 4000;
    constexpr double alpha = 0.05;
    for (const std::size_t rounds : {2U, 3U, 5U, 9U}) {
        int rejected = 0;
        int rejected_two_sigma = 0;
        for (int race = 0; race < races; ++race) {
            std::vector<double> incumbent;
            std::vector<double> challenger;
            for (std::size_t round = 0; round < rounds; ++round) {
                const double common = 0.05 * standard_normal(random);
                incumbent.push_back(100.0 * std::exp(common + 0.02 * standard_normal(random)));
                challenger.push_back(100.0 * std::exp(common + 0.02 * standard_normal(random)));
            }
            const PairedComparison paired = compare_paired(incumbent, challenger);
            if (one_sided_p_value(paired) <= alpha) ++rejected;
            if (paired.mean_log_ratio >= 2.0 * paired.stderr_log_ratio) ++rejected_two_sigma;
        }
        const double rate = static_cast<double>(rejected) / races;
        EXPECT_GT(rate, 0.032) << rounds << " rounds";
        EXPECT_LT(rate, 0.068) << rounds << " rounds";
        if (rounds == 2) {
            EXPECT_GT(static_cast<double>(rejected_two_sigma) / races, 0.068);
        }
    }
}

}  // namespace
}  // namespace fhmoe::tuning
