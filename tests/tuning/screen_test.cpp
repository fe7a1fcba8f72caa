#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/screen.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace fhmoe::tuning {
namespace {

TimingStats stats(double mean_us, double stderr_us, std::uint32_t n) {
    TimingStats s;
    s.n_raw = n;
    s.n_kept = n;
    s.mean_us = mean_us;
    s.stderr_us = stderr_us;
    s.stddev_us = stderr_us * std::sqrt(static_cast<double>(n));
    s.median_us = mean_us;
    s.min_us = mean_us;
    s.max_us = mean_us;
    return s;
}

constexpr double kBar = 3.0;     // min_improvement_pct
constexpr double kRate = 0.001;  // screen_error_rate

TEST(Screen, ACandidateClearlySlowerThanTheBarIsPrunedByIt) {
    // 8 runs, stderr 1 us on 100 us: t(0.9995, 7) = 5.41, so the lower limit of
    // 120 - 0.97 * 100 is 23 - 5.41 * sqrt(1 + 0.97^2 * 0.04) ~ 17.5 us: 17.5% of the incumbent.
    const ScreenOutcome outcome =
        screen_verdict(stats(120.0, 1.0, 8), {stats(100.0, 0.2, 101), std::nullopt}, kBar, kRate);
    EXPECT_TRUE(outcome.screened);
    EXPECT_TRUE(outcome.pruned);
    EXPECT_EQ(outcome.prune_bound, kIncumbentBarBound);
    const double t = student_t_quantile(1.0 - kRate / 2.0, 7);
    const double expected =
        23.0 - t * std::sqrt(1.0 + 0.97 * 0.97 * 0.04);  // in us, on an incumbent of 100 us
    EXPECT_NEAR(outcome.prune_margin_pct, expected, 1e-9);
    EXPECT_EQ(outcome.screen_runs, 8U);
}

TEST(Screen, ACandidateThatCouldStillBeatTheBarSurvives) {
    // 98 us could be promoted against 100 us (bar 97 us) within the screen's spread.
    const ScreenOutcome outcome =
        screen_verdict(stats(98.0, 1.0, 8), {stats(100.0, 0.2, 101), std::nullopt}, kBar, kRate);
    EXPECT_TRUE(outcome.screened);
    EXPECT_FALSE(outcome.pruned);
    EXPECT_EQ(outcome.prune_bound, kIncumbentBarBound);
    EXPECT_LT(outcome.prune_margin_pct, 0.0);
}

TEST(Screen, TheChunkBestPrunesWhatTheIncumbentCannot) {
    // 90 us beats the incumbent's bar, but the chunk already has a full 80 us candidate.
    const ScreenReferences references{stats(100.0, 0.2, 101), stats(80.0, 0.2, 101)};
    const ScreenOutcome outcome = screen_verdict(stats(90.0, 0.5, 8), references, kBar, kRate);
    EXPECT_TRUE(outcome.pruned);
    EXPECT_EQ(outcome.prune_bound, kChunkBestBound);
    EXPECT_GT(outcome.prune_margin_pct, 0.0);
    // Relative to the incumbent: 10 us of 100 us, less the bound's width.
    EXPECT_LT(outcome.prune_margin_pct, 10.0);
}

TEST(Screen, AWideScreenIsNotPrunedOnItsMeanAlone) {
    // 110 us is slower than both references, but a screen that spread cannot say so at 0.1%.
    const ScreenReferences references{stats(100.0, 0.2, 101), stats(100.0, 0.2, 101)};
    const ScreenOutcome outcome = screen_verdict(stats(110.0, 5.0, 8), references, kBar, kRate);
    EXPECT_FALSE(outcome.pruned);
    // A looser error rate lets the same screen prune.
    EXPECT_TRUE(screen_verdict(stats(110.0, 5.0, 8), references, kBar, 0.4).pruned);
}

TEST(Screen, WithoutReferencesNothingIsPruned) {
    const ScreenOutcome outcome = screen_verdict(stats(500.0, 1.0, 8), {}, kBar, kRate);
    EXPECT_TRUE(outcome.screened);
    EXPECT_FALSE(outcome.pruned);
    EXPECT_TRUE(outcome.prune_bound.empty());
}

TEST(Screen, AChunkBestAloneScalesTheMargin) {
    // The incumbent failed in this chunk: chunk_best is the only reference and the scale.
    const ScreenOutcome outcome =
        screen_verdict(stats(150.0, 0.5, 8), {std::nullopt, stats(100.0, 0.2, 101)}, kBar, kRate);
    EXPECT_TRUE(outcome.pruned);
    EXPECT_EQ(outcome.prune_bound, kChunkBestBound);
    EXPECT_GT(outcome.prune_margin_pct, 40.0);
    EXPECT_LT(outcome.prune_margin_pct, 50.0);
}

TEST(Screen, BadScreensAreInternalErrors) {
    const ScreenReferences references{stats(100.0, 0.2, 101), std::nullopt};
    EXPECT_THROW(screen_verdict(stats(100.0, 0.0, 1), references, kBar, kRate), InternalError);
    EXPECT_THROW(screen_verdict(stats(0.0, 0.0, 8), references, kBar, kRate), InternalError);
    EXPECT_THROW(screen_verdict(stats(100.0, 1.0, 8), references, kBar, 0.0), InternalError);
    EXPECT_THROW(screen_verdict(stats(100.0, 1.0, 8), references, -1.0, kRate), InternalError);
}

// The stated error rate, measured: a candidate exactly at the bar's threshold (97 us against a
// 100 us incumbent), screened with 8 log-normal runs of a 2% spread, is pruned in at most
// rate / 2 of the screens (plus the binomial noise of 50,000 trials).
TEST(Screen, AtTheThresholdThePruneRateStaysWithinHalfTheErrorRate) {
    std::mt19937_64 random(16);
    std::normal_distribution<double> noise(0.0, 0.02);
    const double rate = 0.01;
    const int trials = 50000;
    int pruned = 0;
    for (int trial = 0; trial < trials; ++trial) {
        std::vector<double> samples;
        for (int i = 0; i < 8; ++i) samples.push_back(97.0 * std::exp(noise(random)));
        // The incumbent's own 101 runs vary too.
        std::vector<double> incumbent;
        for (int i = 0; i < 101; ++i) incumbent.push_back(100.0 * std::exp(noise(random)));
        const ScreenOutcome outcome = screen_verdict(
            summarize_samples(samples), {summarize_samples(incumbent), std::nullopt}, kBar, rate);
        if (outcome.pruned) ++pruned;
    }
    const double observed = static_cast<double>(pruned) / trials;
    const double sigma = std::sqrt(rate / 2.0 / trials);
    EXPECT_LT(observed, rate / 2.0 + 4.0 * sigma) << pruned << " of " << trials;
    // And not vacuously: the rule does prune near the threshold at this rate.
    EXPECT_GT(pruned, 0);
}

TEST(Screen, TheChunkKeepsTheIncumbentAndTheFastestSurvivor) {
    auto result = [](Status status, double mean_us, bool screened, bool pruned) {
        CandidateResult r;
        r.status = status;
        r.timing = stats(mean_us, 0.2, 101);
        r.screen.screened = screened;
        r.screen.pruned = pruned;
        return r;
    };
    ScreenReferences references;
    note_chunk_result(references, true, result(Status::ok, 100.0, false, false));
    ASSERT_TRUE(references.incumbent.has_value());
    EXPECT_DOUBLE_EQ(references.incumbent->mean_us, 100.0);
    EXPECT_FALSE(references.chunk_best.has_value());

    note_chunk_result(references, false, result(Status::ok, 70.0, true, true));  // pruned
    note_chunk_result(references, false, result(Status::mismatch, 60.0, true, false));
    note_chunk_result(references, false, result(Status::ok, 65.0, false, false));  // unscreened
    EXPECT_FALSE(references.chunk_best.has_value());

    note_chunk_result(references, false, result(Status::ok, 90.0, true, false));
    note_chunk_result(references, false, result(Status::ok, 95.0, true, false));  // slower
    ASSERT_TRUE(references.chunk_best.has_value());
    EXPECT_DOUBLE_EQ(references.chunk_best->mean_us, 90.0);
    note_chunk_result(references, false, result(Status::ok, 85.0, true, false));
    EXPECT_DOUBLE_EQ(references.chunk_best->mean_us, 85.0);
    EXPECT_DOUBLE_EQ(references.incumbent->mean_us, 100.0);
}

}  // namespace
}  // namespace fhmoe::tuning
