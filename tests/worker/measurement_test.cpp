// The measurement steps in-process on the sim backend: statuses that do not kill the
// process (the fatal ones run in real worker processes in tests/supervisor).

#include <gtest/gtest.h>

#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/worker/backend.hpp"
#include "support/small_shape.hpp"
#include "worker/measurement.hpp"

namespace fhmoe::worker {
namespace {

family::ShapeKey tiny_shape() { return test_support::small_shape(3); }

const wire::MeasurementSettings settings{1, 5, 0.05, 1e-2, 1e-2};

MeasurementOutcome measure_on(Backend& backend, const family::Candidate& candidate,
                              std::optional<FaultEntry> fault = std::nullopt) {
    return measure(backend, candidate, settings, fault,
                   [](const FaultEntry&) { FAIL() << "no fatal fault in-process"; });
}

std::optional<FaultEntry> fault(FaultKind kind) { return FaultEntry{kind, 0, {}, false}; }

class SimMeasurement : public ::testing::Test {
protected:
    void SetUp() override {
        backend = make_backend(BackendKind::sim, BackendOptions{});
        backend->load(tiny_shape(), 1);
        candidate = family::build_catalogue(tiny_shape()).front();
    }
    std::unique_ptr<Backend> backend;
    family::Candidate candidate;
};

TEST_F(SimMeasurement, OkTakesItersSamples) {
    const MeasurementOutcome outcome = measure_on(*backend, candidate);
    EXPECT_EQ(outcome.status, tuning::Status::ok);
    EXPECT_EQ(outcome.samples_us.size(), 5U);
    EXPECT_FALSE(outcome.fault_injected);
    EXPECT_GT(outcome.stages.stage1_us, 0.0);
}

TEST_F(SimMeasurement, SameSeedSameDeviceGivesTheSameSamples) {
    auto other = make_backend(BackendKind::sim, BackendOptions{});
    other->load(tiny_shape(), 1);
    EXPECT_EQ(measure_on(*backend, candidate).samples_us, measure_on(*other, candidate).samples_us);
}

TEST_F(SimMeasurement, DeviceSpeedFactorScalesTheModel) {
    BackendOptions fast;
    fast.sim_speed = 2.0;
    auto fast_backend = make_backend(BackendKind::sim, fast);
    fast_backend->load(tiny_shape(), 1);
    const auto slow = measure_on(*backend, candidate).samples_us;
    const auto quick = measure_on(*fast_backend, candidate).samples_us;
    EXPECT_NEAR(quick.front() / slow.front(), 0.5, 0.5 * 0.15);  // within the noise
}

TEST_F(SimMeasurement, WrongOutputIsAMismatchWithMetrics) {
    const MeasurementOutcome outcome = measure_on(*backend, candidate, fault(FaultKind::wrong));
    EXPECT_EQ(outcome.status, tuning::Status::mismatch);
    EXPECT_TRUE(outcome.fault_injected);
    EXPECT_GT(outcome.error.mismatch_fraction, settings.err_ratio);
    EXPECT_NE(outcome.detail.find("wrong@0 (fault injection)"), std::string::npos);
}

TEST_F(SimMeasurement, OomIsARealAllocationFailure) {
    const MeasurementOutcome outcome = measure_on(*backend, candidate, fault(FaultKind::oom));
    EXPECT_EQ(outcome.status, tuning::Status::oom_runtime);
    EXPECT_NE(outcome.detail.find("bad_alloc"), std::string::npos) << outcome.detail;
}

TEST_F(SimMeasurement, ForcedStatuses) {
    EXPECT_EQ(measure_on(*backend, candidate, fault(FaultKind::unsupported)).status,
              tuning::Status::unsupported);
    EXPECT_EQ(measure_on(*backend, candidate, fault(FaultKind::oom_preflight)).status,
              tuning::Status::oom_preflight);
}

TEST(Measurement, MemoryLimitForcesPreflightWithoutInjection) {
    BackendOptions tight;
    tight.memory_limit_bytes = 1;
    auto backend = make_backend(BackendKind::sim, tight);
    backend->load(tiny_shape(), 1);
    const MeasurementOutcome outcome =
        measure_on(*backend, family::build_catalogue(tiny_shape())[0]);
    EXPECT_EQ(outcome.status, tuning::Status::oom_preflight);
    EXPECT_FALSE(outcome.fault_injected);
    EXPECT_NE(outcome.detail.find("0 free"), std::string::npos) << outcome.detail;
}

TEST(Measurement, IllegalCandidateIsUnsupported) {
    auto backend = make_backend(BackendKind::sim, BackendOptions{});
    backend->load(tiny_shape(), 1);
    family::Candidate illegal = family::build_catalogue(tiny_shape())[0];
    illegal.stage1.tile_n = 96;  // does not divide inter_dim 128
    EXPECT_EQ(measure_on(*backend, illegal).status, tuning::Status::unsupported);
}

TEST(Backends, AnUnbuiltBackendIsAClearError) {
    EXPECT_THROW(make_backend(BackendKind::gpu, BackendOptions{}), BackendNotAvailable);
}

}  // namespace
}  // namespace fhmoe::worker

namespace fhmoe::worker {
namespace {

tuning::TimingStats full_measurement(double mean_us) {
    tuning::TimingStats stats;
    stats.n_raw = stats.n_kept = 101;
    stats.mean_us = stats.median_us = stats.min_us = stats.max_us = mean_us;
    stats.stderr_us = mean_us * 0.002;
    return stats;
}

ScreenRequest screen_against(std::optional<tuning::TimingStats> incumbent) {
    ScreenRequest request;
    request.settings.enabled = true;
    request.settings.warmup = 1;
    request.settings.iters = 4;
    request.references.incumbent = incumbent;
    return request;
}

MeasurementOutcome screen_on(Backend& backend, const family::Candidate& candidate,
                             const ScreenRequest& request) {
    return measure(
        backend, candidate, settings, std::nullopt,
        [](const FaultEntry&) { FAIL() << "no fatal fault in-process"; }, request);
}

TEST_F(SimMeasurement, AScreenFarSlowerThanTheBarStopsAfterItsOwnRuns) {
    const double own_us = measure_on(*backend, candidate).samples_us.front();
    // An incumbent twice as fast: no screen of a 2% spread can reach its bar.
    const MeasurementOutcome outcome =
        screen_on(*backend, candidate, screen_against(full_measurement(own_us / 2.0)));
    EXPECT_EQ(outcome.status, tuning::Status::ok);
    EXPECT_TRUE(outcome.screen.screened);
    EXPECT_TRUE(outcome.screen.pruned);
    EXPECT_EQ(outcome.screen.prune_bound, tuning::kIncumbentBarBound);
    EXPECT_GT(outcome.screen.prune_margin_pct, 50.0);
    EXPECT_EQ(outcome.screen.screen_runs, 4U);
    EXPECT_EQ(outcome.samples_us.size(), 4U);  // the screen's runs, not `iters`
    EXPECT_GT(outcome.stages.stage1_us, 0.0);
}

TEST_F(SimMeasurement, AScreenThatCouldWinIsMeasuredInFull) {
    const double own_us = measure_on(*backend, candidate).samples_us.front();
    // An incumbent twice as slow: the candidate could be promoted, so it gets `iters` runs.
    const MeasurementOutcome outcome =
        screen_on(*backend, candidate, screen_against(full_measurement(own_us * 2.0)));
    EXPECT_EQ(outcome.status, tuning::Status::ok);
    EXPECT_TRUE(outcome.screen.screened);
    EXPECT_FALSE(outcome.screen.pruned);
    EXPECT_LT(outcome.screen.prune_margin_pct, 0.0);
    EXPECT_EQ(outcome.samples_us.size(), settings.iters);
}

TEST_F(SimMeasurement, WithoutAReferenceTheScreenPrunesNothing) {
    const MeasurementOutcome outcome = screen_on(*backend, candidate, screen_against(std::nullopt));
    EXPECT_TRUE(outcome.screen.screened);
    EXPECT_FALSE(outcome.screen.pruned);
    EXPECT_EQ(outcome.samples_us.size(), settings.iters);
}

TEST_F(SimMeasurement, AScreenedMismatchIsStillAMismatch) {
    const MeasurementOutcome outcome = measure(
        *backend, candidate, settings, fault(FaultKind::wrong),
        [](const FaultEntry&) { FAIL() << "no fatal fault in-process"; },
        screen_against(full_measurement(1.0)));
    EXPECT_EQ(outcome.status, tuning::Status::mismatch);
    EXPECT_FALSE(outcome.screen.screened);  // the accuracy check comes before any screen
}

}  // namespace
}  // namespace fhmoe::worker
