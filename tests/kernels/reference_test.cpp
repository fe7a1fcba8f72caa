#include <gtest/gtest.h>

#include <cmath>

#include "common/bf16.hpp"
#include "common/host_parallel.hpp"
#include "common/mx_block.hpp"
#include "common/portable_silu.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "kernels/hand_built_problem.hpp"
#include "kernels/kernel_test_support.hpp"
#include "problem/gate_up_layout.hpp"
#include "problem/problem_dims.hpp"
#include "reference/reference_vectors.hpp"

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

// The reference's definition in its most literal form: each expert's rows dequantized as
// written, every output one dot product accumulated in ascending K from zero, experts in id
// order, an expert's slots in slot order. compute_reference computes the same sums another way
// (k-major weights, outputs side by side, tokens sharing loads, cores splitting the work); it
// must agree to the last bit.
ReferenceContributions literal_reference(const Problem& problem) {
    const ProblemDims d(problem.shape);
    const auto plane = static_cast<std::size_t>(d.tokens * d.hidden);
    std::vector<float> x(plane);
    for (std::size_t i = 0; i < plane; ++i) x[i] = decode_bf16(problem.x_bf16[i]);
    const auto round_trip = [](float* row, std::int64_t length) {
        std::uint8_t codes[kMxBlockSize];
        for (std::int64_t b = 0; b < length; b += kMxBlockSize) {
            dequantize_mx_block_fp8(codes, quantize_mx_block_fp8(row + b, codes), row + b);
        }
    };
    for (std::int64_t t = 0; t < d.tokens; ++t) round_trip(x.data() + t * d.hidden, d.hidden);
    // Row `row` of an expert's [rows, k] matrix, dequantized.
    const auto row_of = [&](std::int64_t expert, bool stage1, std::int64_t row) {
        const std::int64_t rows = stage1 ? d.gate_up_rows() : d.hidden;
        const std::int64_t k = stage1 ? d.hidden : d.inter;
        std::vector<float> out(static_cast<std::size_t>(k));
        for (std::int64_t b = 0; b < k / kMxBlockSize; ++b) {
            const std::int64_t at = row * k + b * kMxBlockSize;
            const std::int64_t scale_at = row * (k / kMxBlockSize) + b;
            float* values = out.data() + b * kMxBlockSize;
            if (expert == d.shared_expert) {
                dequantize_mx_block_fp8(
                    (stage1 ? problem.shared_w1_fp8 : problem.shared_w2_fp8).data() + at,
                    (stage1 ? problem.shared_w1_scale : problem.shared_w2_scale)[scale_at], values);
            } else {
                const std::int64_t base = expert * rows * k;
                dequantize_mx_block_fp4(
                    (stage1 ? problem.w1_fp4 : problem.w2_fp4).data() + (base + at) / 2,
                    (stage1 ? problem.w1_scale : problem.w2_scale)[base / kMxBlockSize + scale_at],
                    values);
            }
        }
        return out;
    };
    const auto dot = [](const float* a, const float* b, std::int64_t n) {
        float sum = 0.0f;
        for (std::int64_t k = 0; k < n; ++k) sum += a[k] * b[k];
        return sum;
    };
    ReferenceContributions parts{std::vector<float>(plane, 0.0f), std::vector<float>(plane, 0.0f)};
    for (std::int64_t expert = 0; expert < d.experts; ++expert) {
        for (std::int64_t slot = 0; slot < d.slot_rows(); ++slot) {
            if (problem.topk_ids[static_cast<std::size_t>(slot)] != expert) continue;
            const float* a = x.data() + slot / d.topk * d.hidden;
            std::vector<float> h(static_cast<std::size_t>(d.inter));
            for (std::int64_t i = 0; i < d.inter; ++i) {
                const auto gate =
                    row_of(expert, true, gate_row(problem.shape.gate_mode, d.inter, i));
                const auto up = row_of(expert, true, up_row(problem.shape.gate_mode, d.inter, i));
                h[static_cast<std::size_t>(i)] =
                    portable_silu(dot(a, gate.data(), d.hidden)) * dot(a, up.data(), d.hidden);
            }
            round_trip(h.data(), d.inter);
            float* out = (expert == d.shared_expert ? parts.shared : parts.routed).data() +
                         slot / d.topk * d.hidden;
            for (std::int64_t n = 0; n < d.hidden; ++n) {
                const auto w2 = row_of(expert, false, n);
                out[n] += problem.topk_weights[static_cast<std::size_t>(slot)] *
                          dot(h.data(), w2.data(), d.inter);
            }
        }
    }
    return parts;
}

void expect_same_bits(const std::vector<float>& expected, const std::vector<float>& actual) {
    ASSERT_EQ(expected.size(), actual.size());
    EXPECT_EQ(reference_digest(expected), reference_digest(actual));
    for (std::size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(float_to_bits(expected[i]), float_to_bits(actual[i])) << "element " << i;
    }
}

TEST(Reference, EverySumIsOneDotProductInKOrderToTheLastBit) {
    // Token counts around the 4-token groups, both gate modes, several seeds.
    for (const std::int64_t tokens : {1, 3, 9}) {
        for (const GateMode mode : {GateMode::interleave, GateMode::separated}) {
            for (const std::uint64_t seed : {3u, 17u}) {
                SCOPED_TRACE(::testing::Message() << tokens << " tokens, seed " << seed);
                const Problem problem = generate_problem(testing::small_shape(tokens, mode), seed);
                const ReferenceContributions literal = literal_reference(problem);
                const ReferenceContributions fast = compute_reference_contributions(problem);
                expect_same_bits(literal.routed, fast.routed);
                expect_same_bits(literal.shared, fast.shared);
            }
        }
    }
}

// The work is split over host_threads() cores (every item writing its own outputs): one
// thread and an odd count of many give the literal definition's bits alike.
TEST(Reference, OneThreadAndManyGiveTheLiteralBits) {
    const Problem problem = generate_problem(testing::small_shape(9, GateMode::separated), 5);
    const ReferenceContributions literal = literal_reference(problem);
    for (const int threads : {1, 7}) {
        SCOPED_TRACE(::testing::Message() << threads << " threads");
        const ScopedHostThreads scoped(threads);
        const ReferenceContributions fast = compute_reference_contributions(problem);
        expect_same_bits(literal.routed, fast.routed);
        expect_same_bits(literal.shared, fast.shared);
    }
}

// The inner loop runs on the widest SIMD vectors the host has (reference_vectors.hpp); every
// width at or below that gives the literal definition's bits (an x86-64 host with AVX-512
// runs all three here).
TEST(Reference, EveryVectorWidthGivesTheLiteralBits) {
    const Problem problem = generate_problem(testing::small_shape(6, GateMode::interleave), 41);
    const ReferenceContributions literal = literal_reference(problem);
    for (const int floats : {4, 8, 16}) {
        SCOPED_TRACE(::testing::Message() << "at most " << floats << " floats per vector");
        const ScopedReferenceVectorLimit limit(floats);
        EXPECT_LE(reference_vector_floats(), floats);
        const ReferenceContributions fast = compute_reference_contributions(problem);
        expect_same_bits(literal.routed, fast.routed);
        expect_same_bits(literal.shared, fast.shared);
    }
}

TEST(Reference, ARoutingThatRepeatsAnExpertInATokenAddsItsSlotsInSlotOrder) {
    Problem problem = generate_problem(testing::small_shape(5, GateMode::interleave), 23);
    const ProblemDims d(problem.shape);
    // Token 2's second routed slot repeats its first expert, with its own weight.
    problem.topk_ids[static_cast<std::size_t>(2 * d.topk + 1)] =
        problem.topk_ids[static_cast<std::size_t>(2 * d.topk)];
    const ReferenceContributions literal = literal_reference(problem);
    const ReferenceContributions fast = compute_reference_contributions(problem);
    expect_same_bits(literal.routed, fast.routed);
    expect_same_bits(literal.shared, fast.shared);
}

// The inner loop takes an expert's slots in passes of up to 8 (AVX-512), 4 (AVX) or 2 (SSE2)
// tokens, split evenly, with one instantiation per pass size. A routing with experts of 0, 1,
// 2, 3 and 5-24 slots (some repeated within a token) and 37 tokens for the shared expert runs
// every pass size at every width; each must give the literal definition's bits on 1 thread
// and on 3.
TEST(Reference, EveryPassSizeAtEveryWidthGivesTheLiteralBits) {
    Problem problem = generate_problem(testing::small_shape(37, GateMode::separated), 59);
    const ProblemDims d(problem.shape);
    const std::vector<std::int64_t> slots_of_expert = {1,  19, 9,  8, 0, 2,  17, 3,
                                                       16, 1,  24, 5, 7, 11, 10, 15};
    std::vector<std::int64_t> experts;
    for (std::size_t e = 0; e < slots_of_expert.size(); ++e) {
        experts.insert(experts.end(), static_cast<std::size_t>(slots_of_expert[e]),
                       static_cast<std::int64_t>(e));
    }
    std::vector<std::size_t> routed_slots;
    for (std::size_t slot = 0; slot < problem.topk_ids.size(); ++slot) {
        if (problem.topk_ids[slot] != d.shared_expert) routed_slots.push_back(slot);
    }
    ASSERT_EQ(routed_slots.size(), experts.size());
    // A stride coprime to the 148 routed slots scatters each expert's slots over the tokens.
    for (std::size_t i = 0; i < routed_slots.size(); ++i) {
        problem.topk_ids[routed_slots[i * 31 % routed_slots.size()]] =
            static_cast<std::int32_t>(experts[i]);
    }
    const ReferenceContributions literal = literal_reference(problem);
    for (const int floats : {4, 8, 16}) {
        for (const int threads : {1, 3}) {
            SCOPED_TRACE(::testing::Message() << "at most " << floats << " floats per vector, "
                                              << threads << " threads");
            const ScopedReferenceVectorLimit limit(floats);
            const ScopedHostThreads scoped(threads);
            const ReferenceContributions fast = compute_reference_contributions(problem);
            expect_same_bits(literal.routed, fast.routed);
            expect_same_bits(literal.shared, fast.shared);
        }
    }
}

TEST(Reference, DigestFollowsEveryBitOfTheOutput) {
    std::vector<float> out(64, 1.0f);
    const std::uint64_t digest = reference_digest(out);
    out[63] = std::nextafter(1.0f, 2.0f);
    EXPECT_NE(reference_digest(out), digest);
}

}  // namespace
}  // namespace fhmoe::kernels
