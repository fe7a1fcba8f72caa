// The tuner must never turn a correct kernel into `mismatch`, and must always catch a wrong
// one. This runs a seeded sample of the family catalogue for every shipped small shape
// through the cpu backend and judges it with the FHMoE family's accuracy policy: every
// offered candidate constructs (none is unsupported) and passes; a planted scale-index bug
// fails. It also pins why the family overrides aiter's generic 1e-2 tolerances.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/catalogue_sample.hpp"
#include "fhmoe/family/fhmoe_policy.hpp"
#include "fhmoe/family/name_grammar.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/cpu_op.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "kernels/kernel_test_support.hpp"
#include "support/small_shape.hpp"

namespace fhmoe::kernels {
namespace {

using family::GateMode;
using test_support::small_shape;  // H 512 as shipped, not testing::small_shape's H 256

constexpr std::size_t kSampleSize = 40;
constexpr std::uint64_t kSampleSeed = 20261130;
constexpr std::uint64_t kDataSeed = 1;

tuning::ErrorMetrics run_and_measure(const Problem& problem, const ReferenceOutput& reference,
                                     const family::Candidate& candidate,
                                     const tuning::MeasurementPolicy& policy,
                                     CpuOpFault fault = CpuOpFault::none) {
    const auto out = testing::run_cpu_op(problem, candidate, CpuOpOptions{2, fault});
    return measure_accuracy(reference.out, out, AccuracyTolerance{policy.rtol, policy.atol});
}

bool passes(const tuning::ErrorMetrics& metrics, const tuning::MeasurementPolicy& policy) {
    return passes_accuracy(metrics, policy.err_ratio, policy.max_cosine_distance);
}

class CatalogueAccuracy : public ::testing::TestWithParam<std::pair<int, GateMode>> {};

TEST_P(CatalogueAccuracy, EverySampledCandidatePassesAndThePlantedBugFails) {
    const auto [token, gate_mode] = GetParam();
    const family::ShapeKey shape = small_shape(token, gate_mode);
    const auto policy = family::fhmoe_tuning_policy().measurement;
    const Problem problem = generate_problem(shape, kDataSeed);
    const ReferenceOutput reference = compute_reference(problem);

    const auto sample = family::sample_shape_catalogue(shape, kSampleSize, kSampleSeed);
    ASSERT_GE(sample.size(), kSampleSize);
    for (const family::Candidate& candidate : sample) {
        const std::string name = family::format_stage1_name(candidate.stage1) + " " +
                                 family::format_stage2_name(candidate.stage2) + " bm" +
                                 std::to_string(candidate.block_m);
        tuning::ErrorMetrics metrics;
        ASSERT_NO_THROW(metrics = run_and_measure(problem, reference, candidate, policy)) << name;
        EXPECT_TRUE(passes(metrics, policy)) << name << ": mismatch " << metrics.mismatch_fraction
                                             << " cosine " << metrics.cosine_distance;
    }
    const auto wrong = run_and_measure(problem, reference, sample.front(), policy,
                                       CpuOpFault::stage2_scale_off_by_one);
    EXPECT_FALSE(passes(wrong, policy));
}

INSTANTIATE_TEST_SUITE_P(ShippedSmallShapes, CatalogueAccuracy,
                         ::testing::Values(std::pair{1, GateMode::interleave},
                                           std::pair{3, GateMode::interleave},
                                           std::pair{100, GateMode::interleave},
                                           std::pair{16, GateMode::separated}));

TEST(FhmoePolicy, AitersGenericTolerancesWouldRejectACorrectUnfusedKernel) {
    // Serving's unfused stage1 rounds h through bf16 before quantizing it; at 1e-2 a correct
    // kernel shows a double-digit mismatch fraction, at the family's 0.1 it passes.
    const family::ShapeKey shape = small_shape(100, GateMode::interleave);
    const Problem problem = generate_problem(shape, kDataSeed);
    const ReferenceOutput reference = compute_reference(problem);
    family::Candidate unfused;
    unfused.block_m = 32;
    unfused.stage1 = {32, 64, 128, 1, 1, GateMode::interleave, false};
    unfused.stage2 = {32, 128, 128, family::Stage2Mode::atomic, false};
    const auto generic = tuning::default_policy().measurement;
    const auto fhmoe = family::fhmoe_tuning_policy().measurement;
    EXPECT_FALSE(passes(run_and_measure(problem, reference, unfused, generic), generic));
    EXPECT_TRUE(passes(run_and_measure(problem, reference, unfused, fhmoe), fhmoe));
}

}  // namespace
}  // namespace fhmoe::kernels
