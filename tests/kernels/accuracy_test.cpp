#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "common/bf16.hpp"
#include "common/host_parallel.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/kernels/accuracy.hpp"

namespace fhmoe::kernels {
namespace {

std::vector<std::uint16_t> to_bf16(const std::vector<float>& values) {
    std::vector<std::uint16_t> out;
    for (float value : values) out.push_back(encode_bf16(value));
    return out;
}

TEST(MeasureAccuracy, CountsElementsOutsideAtolPlusRtolTimesReference) {
    const std::vector<float> reference = {1.0f, 2.0f, -4.0f, 0.0f};
    // Deltas 0.0, 0.25 (> 0.01 + 0.02), 0.0, 0.5 (> 0.01).
    const auto out = to_bf16({1.0f, 2.25f, -4.0f, 0.5f});
    const auto metrics = measure_accuracy(reference, out, AccuracyTolerance{1e-2, 1e-2});
    EXPECT_DOUBLE_EQ(metrics.mismatch_fraction, 0.5);
    EXPECT_DOUBLE_EQ(metrics.max_abs_delta, 0.5);
    EXPECT_FALSE(metrics.catastrophic);  // 0.5 is not above 0.5 * max(4, 1) = 2
    // 1 - 2*sum(xy)/sum(x^2+y^2) in double.
    const double xy = 1.0 + 2.0 * 2.25 + 16.0;
    const double squares = 1.0 + 1.0 + 4.0 + 2.25 * 2.25 + 16.0 + 16.0 + 0.25;
    EXPECT_NEAR(metrics.cosine_distance, 1.0 - 2.0 * xy / squares, 1e-15);
    EXPECT_FALSE(passes_accuracy(metrics, 0.05));
    EXPECT_TRUE(passes_accuracy(metrics, 0.5));
}

TEST(MeasureAccuracy, AnIdenticalOutputHasNoError) {
    const std::vector<float> reference = {0.5f, -3.0f, 7.0f};
    const auto metrics = measure_accuracy(reference, to_bf16(reference), AccuracyTolerance{});
    EXPECT_EQ(metrics.mismatch_fraction, 0.0);
    EXPECT_EQ(metrics.max_abs_delta, 0.0);
    EXPECT_NEAR(metrics.cosine_distance, 0.0, 1e-15);
    EXPECT_TRUE(passes_accuracy(metrics, 0.0, kMaxCosineDistance));
}

TEST(MeasureAccuracy, NaNOrInfinityIsCatastrophic) {
    const std::vector<float> reference = {1.0f, 1.0f, 1.0f, 1.0f};
    for (float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        const auto metrics = measure_accuracy(reference, to_bf16({1.0f, 1.0f, 1.0f, bad}), {});
        EXPECT_TRUE(metrics.catastrophic);
        EXPECT_FALSE(passes_accuracy(metrics, 1.0));
    }
    auto nan_reference = reference;
    nan_reference[0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(measure_accuracy(nan_reference, to_bf16(reference), {}).catastrophic);
}

TEST(MeasureAccuracy, OneHugeDeltaIsCatastrophicEvenWhenTheFractionIsSmall) {
    std::vector<float> reference(1000, 1.0f);
    std::vector<float> out = reference;
    out[0] = 1.75f;  // 0.75 > 0.5 * max(1, 1): aiter's catastrophic check
    const auto metrics = measure_accuracy(reference, to_bf16(out), {});
    EXPECT_DOUBLE_EQ(metrics.mismatch_fraction, 0.001);
    EXPECT_TRUE(metrics.catastrophic);
    EXPECT_FALSE(passes_accuracy(metrics, 0.05));
}

TEST(MeasureAccuracy, TheCosineBarIsSeparateFromTheMismatchFraction) {
    std::vector<float> reference(100, 1.0f);
    std::vector<float> out = reference;
    for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(i)] = 1.4f;  // 4% mismatching
    const auto metrics = measure_accuracy(reference, to_bf16(out), {});
    EXPECT_TRUE(passes_accuracy(metrics, 0.05));
    EXPECT_GT(metrics.cosine_distance, kMaxCosineDistance);
    EXPECT_FALSE(passes_accuracy(metrics, 0.05, kMaxCosineDistance));
}

// Outputs of many blocks (a DSV4 output at 2048 tokens is 14.7 M elements) are measured on
// several threads: every metric must be the same bits on one thread and on many, count every
// block's mismatches, and see a NaN in the last block.
TEST(MeasureAccuracy, ManyBlocksGiveTheSameMetricsOnAnyThreadCount) {
    constexpr std::size_t kElements = 300'000;  // five blocks, the last one partial
    std::vector<float> reference(kElements);
    std::vector<float> actual(kElements);
    std::size_t expected_mismatches = 0;
    for (std::size_t i = 0; i < kElements; ++i) {
        reference[i] = std::sin(0.001f * static_cast<float>(i));
        actual[i] = reference[i];
        if (i % 1000 == 7) {
            actual[i] += 0.35f;  // outside atol + rtol * |reference|, short of catastrophic
            ++expected_mismatches;
        }
    }
    std::vector<std::uint16_t> out = to_bf16(actual);
    tuning::ErrorMetrics one;
    {
        const ScopedHostThreads single(1);
        one = measure_accuracy(reference, out, {});
    }
    tuning::ErrorMetrics many;
    {
        const ScopedHostThreads several(7);
        many = measure_accuracy(reference, out, {});
    }
    EXPECT_EQ(one.mismatch_fraction, many.mismatch_fraction);
    EXPECT_EQ(one.cosine_distance, many.cosine_distance);
    EXPECT_EQ(one.max_abs_delta, many.max_abs_delta);
    EXPECT_EQ(one.catastrophic, many.catastrophic);
    EXPECT_DOUBLE_EQ(many.mismatch_fraction,
                     static_cast<double>(expected_mismatches) / static_cast<double>(kElements));
    EXPECT_GT(many.cosine_distance, 0.0);
    EXPECT_FALSE(many.catastrophic);

    out.back() = 0x7FC0U;  // a NaN in the last, partial block
    const tuning::ErrorMetrics with_nan = measure_accuracy(reference, out, {});
    EXPECT_TRUE(with_nan.catastrophic);
    EXPECT_TRUE(std::isinf(with_nan.max_abs_delta));
}

TEST(MeasureAccuracy, SizesMustMatch) {
    const std::vector<float> reference(3, 0.0f);
    const std::vector<std::uint16_t> out(2, 0);
    EXPECT_THROW(measure_accuracy(reference, out, {}), Error);
}

}  // namespace
}  // namespace fhmoe::kernels
