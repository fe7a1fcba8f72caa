#include <gtest/gtest.h>

#include <cmath>

#include "common/bf16.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "kernels/hand_built_problem.hpp"
#include "kernels/kernel_test_support.hpp"

namespace fhmoe::kernels {
namespace {

using family::GateMode;

class ReferenceByHand : public ::testing::TestWithParam<GateMode> {};

TEST_P(ReferenceByHand, MatchesTheValuesDerivedOnPaper) {
    const Problem problem = testing::hand_built_problem(GetParam());
    const ReferenceOutput reference = compute_reference(problem);
    ASSERT_EQ(reference.out.size(), static_cast<std::size_t>(testing::kHandHidden));
    for (std::int64_t n = 0; n < testing::kHandHidden; ++n) {
        EXPECT_EQ(reference.out[static_cast<std::size_t>(n)], testing::hand_expected_output(n))
            << "column " << n;
    }
}

TEST_P(ReferenceByHand, SplitsIntoTheRoutedAndSharedParts) {
    const Problem problem = testing::hand_built_problem(GetParam());
    const ReferenceContributions parts = compute_reference_contributions(problem);
    for (std::int64_t n = 0; n < testing::kHandHidden; ++n) {
        const auto i = static_cast<std::size_t>(n);
        EXPECT_EQ(parts.routed[i], testing::kHandRoutedWeight * testing::hand_routed_value(n));
        EXPECT_EQ(parts.shared[i], testing::hand_shared_value(n));
    }
}

TEST_P(ReferenceByHand, ReadsTheGateAndUpRowsOfTheShapesGateMode) {
    // The same bytes read with the other gate mode swap gate and up: the routed h becomes
    // silu(6) * 1 = 5.985 -> 6.0 instead of 4.5, so the output must change.
    Problem problem = testing::hand_built_problem(GetParam());
    problem.shape.gate_mode =
        GetParam() == GateMode::interleave ? GateMode::separated : GateMode::interleave;
    const ReferenceOutput reference = compute_reference(problem);
    EXPECT_NE(reference.out[5], testing::hand_expected_output(5));
}

INSTANTIATE_TEST_SUITE_P(GateModes, ReferenceByHand,
                         ::testing::Values(GateMode::interleave, GateMode::separated));

TEST(Reference, OutputIsExactlyTheRoutedPlusTheSharedContribution) {
    const Problem problem = generate_problem(testing::small_shape(9, GateMode::separated), 11);
    const ReferenceOutput reference = compute_reference(problem);
    const ReferenceContributions parts = compute_reference_contributions(problem);
    for (std::size_t i = 0; i < reference.out.size(); ++i) {
        EXPECT_EQ(reference.out[i], parts.routed[i] + parts.shared[i]) << i;
    }
    EXPECT_EQ(reference.digest, reference_digest(reference.out));
}

TEST(Reference, DigestFollowsEveryBitOfTheOutput) {
    std::vector<float> out(64, 1.0f);
    const std::uint64_t digest = reference_digest(out);
    out[63] = std::nextafter(1.0f, 2.0f);
    EXPECT_NE(reference_digest(out), digest);
}

}  // namespace
}  // namespace fhmoe::kernels
