// The routed and the shared paths of the cpu op, each checked on its own: zeroing the
// routing weights of one part leaves the op computing only the other, which must match
// that part of the reference.

#include <gtest/gtest.h>

#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "kernels/kernel_test_support.hpp"

namespace fhmoe::kernels {
namespace {

using family::GateMode;

Problem with_slot_weights_zeroed(Problem problem, bool shared_slot) {
    const std::int64_t topk = problem.shape.topk;
    for (std::size_t i = 0; i < problem.topk_weights.size(); ++i) {
        const bool is_shared = static_cast<std::int64_t>(i) % topk == topk - 1;
        if (is_shared == shared_slot) problem.topk_weights[i] = 0.0f;
    }
    return problem;
}

class CpuOpContribution : public ::testing::TestWithParam<GateMode> {};

TEST_P(CpuOpContribution, SharedExpertAloneMatchesTheSharedReference) {
    const Problem problem = generate_problem(testing::small_shape(17, GetParam()), 77);
    const ReferenceContributions parts = compute_reference_contributions(problem);
    family::Candidate candidate = testing::basic_candidate(GetParam());
    candidate.stage1.fused_fp8_out = true;
    const auto out =
        testing::run_cpu_op(with_slot_weights_zeroed(problem, /*shared_slot=*/false), candidate);
    const auto shared_only = measure_accuracy(parts.shared, out, AccuracyTolerance{});
    EXPECT_TRUE(passes_accuracy(shared_only, testing::kErrRatio, kMaxCosineDistance))
        << shared_only.mismatch_fraction << " " << shared_only.cosine_distance;
    // The routed part is not in there: against the whole reference it fails.
    EXPECT_FALSE(passes_accuracy(measure_accuracy(parts.routed, out, AccuracyTolerance{}),
                                 testing::kErrRatio));
}

TEST_P(CpuOpContribution, RoutedExpertsAloneMatchTheRoutedReference) {
    const Problem problem = generate_problem(testing::small_shape(17, GetParam()), 78);
    const ReferenceContributions parts = compute_reference_contributions(problem);
    family::Candidate candidate = testing::basic_candidate(GetParam());
    candidate.stage1.fused_fp8_out = true;
    candidate.stage2.mode = family::Stage2Mode::reduce;
    const auto out =
        testing::run_cpu_op(with_slot_weights_zeroed(problem, /*shared_slot=*/true), candidate);
    const auto routed_only = measure_accuracy(parts.routed, out, AccuracyTolerance{});
    EXPECT_TRUE(passes_accuracy(routed_only, testing::kErrRatio, kMaxCosineDistance))
        << routed_only.mismatch_fraction << " " << routed_only.cosine_distance;
    EXPECT_FALSE(passes_accuracy(measure_accuracy(parts.shared, out, AccuracyTolerance{}),
                                 testing::kErrRatio));
}

INSTANTIATE_TEST_SUITE_P(GateModes, CpuOpContribution,
                         ::testing::Values(GateMode::interleave, GateMode::separated));

}  // namespace
}  // namespace fhmoe::kernels
