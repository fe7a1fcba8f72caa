#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <utility>

#include "common/host_parallel.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "kernels/kernel_test_support.hpp"

namespace fhmoe::kernels {
namespace {

using family::GateMode;
using testing::small_shape;

TEST(GenerateProblem, SameSeedGivesIdenticalBytesAndReference) {
    const auto shape = small_shape(7, GateMode::interleave);
    const Problem first = generate_problem(shape, 42);
    const Problem second = generate_problem(shape, 42);
    EXPECT_EQ(first.x_bf16, second.x_bf16);
    EXPECT_EQ(first.topk_ids, second.topk_ids);
    EXPECT_EQ(first.topk_weights, second.topk_weights);
    EXPECT_EQ(first.w1_fp4, second.w1_fp4);
    EXPECT_EQ(first.w1_scale, second.w1_scale);
    EXPECT_EQ(first.w2_fp4, second.w2_fp4);
    EXPECT_EQ(first.w2_scale, second.w2_scale);
    EXPECT_EQ(first.shared_w1_fp8, second.shared_w1_fp8);
    EXPECT_EQ(first.shared_w1_scale, second.shared_w1_scale);
    EXPECT_EQ(first.shared_w2_fp8, second.shared_w2_fp8);
    EXPECT_EQ(first.shared_w2_scale, second.shared_w2_scale);
    EXPECT_EQ(problem_digest(first), problem_digest(second));
    EXPECT_EQ(compute_reference(first).digest, compute_reference(second).digest);
}

TEST(GenerateProblem, DifferentSeedsGiveDifferentDataAndReference) {
    const auto shape = small_shape(7, GateMode::interleave);
    const Problem first = generate_problem(shape, 1);
    const Problem second = generate_problem(shape, 2);
    EXPECT_NE(first.x_bf16, second.x_bf16);
    EXPECT_NE(first.topk_ids, second.topk_ids);
    EXPECT_NE(first.w1_fp4, second.w1_fp4);
    EXPECT_NE(first.w2_scale, second.w2_scale);
    EXPECT_NE(first.shared_w2_fp8, second.shared_w2_fp8);
    EXPECT_NE(problem_digest(first), problem_digest(second));
    EXPECT_NE(compute_reference(first).digest, compute_reference(second).digest);
}

// A worker reuses a model's weights across token counts: what it draws for the new token
// count must be byte for byte what a fresh generation gives, in either direction.
TEST(GenerateProblem, TokenInputsOnKeptWeightsEqualAFreshProblem) {
    for (const auto& [from, to] : {std::pair{1, 37}, std::pair{37, 5}}) {
        Problem kept = generate_problem(small_shape(from, GateMode::interleave), 9);
        const auto shape = small_shape(to, GateMode::interleave);
        generate_token_inputs(kept, shape);
        const Problem fresh = generate_problem(shape, 9);
        EXPECT_EQ(kept.shape, fresh.shape);
        EXPECT_EQ(kept.x_bf16, fresh.x_bf16);
        EXPECT_EQ(kept.topk_ids, fresh.topk_ids);
        EXPECT_EQ(kept.topk_weights, fresh.topk_weights);
        EXPECT_EQ(problem_digest(kept), problem_digest(fresh)) << from << " -> " << to;
        EXPECT_EQ(compute_reference(kept).digest, compute_reference(fresh).digest);
    }
}

TEST(GenerateProblem, TokenInputsRefuseAnotherModel) {
    Problem kept = generate_problem(small_shape(4, GateMode::interleave), 9);
    const Problem before = kept;
    auto other = small_shape(4, GateMode::separated);
    EXPECT_FALSE(shares_weights(kept.shape, other));
    EXPECT_THROW(generate_token_inputs(kept, other), Error);
    other = small_shape(4, GateMode::interleave);
    other.inter_dim *= 2;
    EXPECT_THROW(generate_token_inputs(kept, other), Error);
    EXPECT_EQ(problem_digest(kept), problem_digest(before));  // refused before drawing anything
    EXPECT_TRUE(shares_weights(kept.shape, small_shape(100, GateMode::interleave)));
}

// Golden values: the generator's output is a cross-machine contract (every rank must build
// the same bytes), so a change here must be deliberate. Update both numbers together with
// any intended change to generate_problem.
TEST(GenerateProblem, DigestsArePinnedAcrossMachines) {
    family::ShapeKey shape = small_shape(3, GateMode::separated);
    shape.model_dim = 64;
    shape.inter_dim = 32;
    shape.expert = 5;
    shape.topk = 3;
    shape.shared_expert_id = 4;
    const Problem problem = generate_problem(shape, 20240601);
    EXPECT_EQ(problem_digest(problem), 0xc928a56cb0908b62ull);
    EXPECT_EQ(compute_reference(problem).digest, 0x54fb3dba022ce1bdull);
}

// The same contract for tensors the generator splits into many parallel work items (W1 here
// is 32 MiB, 32 items of 1 Mi codes; x has 2 items): pinned from the single-threaded
// generator the parallel one replaced, so the split never shows in the bytes, with one thread
// or many (host_parallel.hpp).
TEST(GenerateProblem, ParallelGenerationKeepsThePinnedBytes) {
    family::ShapeKey shape = small_shape(256, GateMode::interleave);
    shape.model_dim = 4096;
    shape.inter_dim = 256;
    shape.expert = 33;
    shape.topk = 5;
    shape.shared_expert_id = 32;
    for (const int threads : {1, 7}) {
        SCOPED_TRACE(::testing::Message() << threads << " threads");
        const ScopedHostThreads scoped(threads);
        const Problem problem = generate_problem(shape, 20261201);
        EXPECT_EQ(problem_digest(problem), 0xf169504a4867c6f0ull);
    }
}

TEST(GenerateProblem, RoutesDistinctExpertsThenTheSharedOneLast) {
    const auto shape = small_shape(50, GateMode::interleave);
    const Problem problem = generate_problem(shape, 3);
    for (std::int64_t t = 0; t < shape.token; ++t) {
        const auto row = problem.topk_ids.begin() + t * shape.topk;
        std::set<std::int32_t> routed(row, row + shape.topk - 1);
        EXPECT_EQ(routed.size(), static_cast<std::size_t>(shape.topk - 1)) << "token " << t;
        EXPECT_GE(*routed.begin(), 0);
        EXPECT_LE(*routed.rbegin(), shape.expert - 2);
        EXPECT_EQ(row[shape.topk - 1], shape.shared_expert_id);

        const auto weights = problem.topk_weights.begin() + t * shape.topk;
        const float routed_sum = std::accumulate(weights, weights + shape.topk - 1, 0.0f);
        EXPECT_NEAR(routed_sum, 2.5f, 1e-5f);
        EXPECT_TRUE(
            std::all_of(weights, weights + shape.topk - 1, [](float w) { return w > 0.0f; }));
        EXPECT_EQ(weights[shape.topk - 1], 1.0f);
    }
    // Over 50 tokens every routed expert is used by someone.
    EXPECT_EQ(std::set<std::int32_t>(problem.topk_ids.begin(), problem.topk_ids.end()).size(),
              static_cast<std::size_t>(shape.expert));
}

TEST(GenerateProblem, ScalesAreRealAndVariedAndTheDummyRowIsZero) {
    const auto shape = small_shape(2, GateMode::interleave);
    const Problem problem = generate_problem(shape, 5);
    const auto routed_w1_scales =
        static_cast<std::size_t>((shape.expert - 1) * 2 * shape.inter_dim * shape.model_dim / 32);
    const std::set<std::uint8_t> w1_scales(problem.w1_scale.begin(),
                                           problem.w1_scale.begin() + routed_w1_scales);
    EXPECT_GE(w1_scales.size(), 4u);
    EXPECT_EQ(w1_scales.count(0xFF), 0u);
    EXPECT_GE(std::set<std::uint8_t>(problem.w2_scale.begin(), problem.w2_scale.end()).size(), 4u);
    EXPECT_GE(std::set<std::uint8_t>(problem.shared_w1_scale.begin(), problem.shared_w1_scale.end())
                  .size(),
              4u);
    EXPECT_GE(std::set<std::uint8_t>(problem.shared_w2_scale.begin(), problem.shared_w2_scale.end())
                  .size(),
              4u);
    const auto dummy_w1 =
        problem.w1_fp4.begin() +
        static_cast<std::ptrdiff_t>(problem.w1_fp4.size() - problem.w1_fp4.size() / 17);
    EXPECT_TRUE(std::all_of(dummy_w1, problem.w1_fp4.end(), [](std::uint8_t b) { return b == 0; }));
    EXPECT_FALSE(
        std::all_of(problem.w1_fp4.begin(), dummy_w1, [](std::uint8_t b) { return b == 0; }));
}

void expect_rejected(const family::ShapeKey& shape, const std::string& field) {
    try {
        generate_problem(shape, 1);
        ADD_FAILURE() << "expected a rejection naming " << field;
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find(field), std::string::npos) << error.what();
    }
}

TEST(GenerateProblem, RejectsShapesTheOpCannotRepresent) {
    const auto good = small_shape(4, GateMode::interleave);
    auto shape = good;
    shape.model_dim = 100;
    expect_rejected(shape, "model_dim 100 is not a multiple of 32");
    shape = good;
    shape.inter_dim = 48;
    expect_rejected(shape, "inter_dim 48");
    shape = good;
    shape.shared_expert_id = 3;
    expect_rejected(shape, "shared_expert_id 3 must be expert - 1");
    shape = good;
    shape.topk = 1;
    expect_rejected(shape, "topk 1");
    shape = good;
    shape.topk = 18;
    expect_rejected(shape, "topk 18 needs 17 distinct routed experts");
    shape = good;
    shape.token = 0;
    expect_rejected(shape, "token 0");
    shape = good;
    shape.q_dtype_a = family::QDType::fp4_e2m1fn_x2;
    expect_rejected(shape, "q_dtype_a");
    shape = good;
    shape.hidden_pad = 64;
    expect_rejected(shape, "hidden_pad");
}

TEST(ValidateProblem, RejectsATensorOfTheWrongSizeAndAnIdOutOfRange) {
    Problem problem = generate_problem(small_shape(2, GateMode::interleave), 9);
    problem.topk_ids[3] = 17;
    EXPECT_THROW(validate_problem(problem), Error);
    problem.topk_ids[3] = 0;
    problem.w2_scale.pop_back();
    EXPECT_THROW(validate_problem(problem), Error);
}

}  // namespace
}  // namespace fhmoe::kernels
