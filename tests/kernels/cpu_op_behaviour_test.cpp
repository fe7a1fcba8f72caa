// What the cpu op does beyond matching the reference: it computes the hand-derived values,
// a planted wrong kernel is caught, reduce mode is deterministic, atomic mode zeroes its
// output, the op is reusable, and candidates really differ in what they compute and hold.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "common/bf16.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "kernels/hand_built_problem.hpp"
#include "kernels/kernel_test_support.hpp"

namespace fhmoe::kernels {
namespace {

using family::GateMode;
using family::Stage2Mode;

family::Candidate hand_candidate(GateMode mode, bool fused, Stage2Mode stage2_mode) {
    return family::Candidate{32, {32, 32, 64, 2, 2, mode, fused}, {32, 64, 32, stage2_mode, true}};
}

TEST(CpuOp, ComputesTheHandDerivedValues) {
    for (GateMode mode : {GateMode::interleave, GateMode::separated}) {
        for (bool fused : {false, true}) {
            for (Stage2Mode stage2 : {Stage2Mode::atomic, Stage2Mode::reduce}) {
                const Problem problem = testing::hand_built_problem(mode);
                const auto out = testing::run_cpu_op(problem, hand_candidate(mode, fused, stage2));
                for (std::int64_t n = 0; n < testing::kHandHidden; ++n) {
                    const float expected = testing::hand_expected_output(n);
                    // Two bf16 roundings at most (the slot sum), each half a bf16 step.
                    EXPECT_NEAR(decode_bf16(out[static_cast<std::size_t>(n)]), expected,
                                std::abs(expected) * 0x1p-8f)
                        << "column " << n << " fused " << fused;
                }
            }
        }
    }
}

TEST(CpuOp, APlantedScaleIndexBugIsCaughtByTheAccuracyCheck) {
    const Problem problem = generate_problem(testing::small_shape(17, GateMode::interleave), 5);
    const ReferenceOutput reference = compute_reference(problem);
    const family::Candidate candidate = testing::basic_candidate(GateMode::interleave);
    const auto correct = testing::run_cpu_op(problem, candidate);
    const auto wrong = testing::run_cpu_op(problem, candidate,
                                           CpuOpOptions{0, CpuOpFault::stage2_scale_off_by_one});
    const auto good_metrics = measure_accuracy(reference.out, correct, AccuracyTolerance{});
    const auto bad_metrics = measure_accuracy(reference.out, wrong, AccuracyTolerance{});
    EXPECT_TRUE(passes_accuracy(good_metrics, testing::kErrRatio));
    EXPECT_FALSE(passes_accuracy(bad_metrics, testing::kErrRatio));
    EXPECT_GT(bad_metrics.mismatch_fraction, 0.5);
    EXPECT_GT(bad_metrics.cosine_distance, 0.05);
}

TEST(CpuOp, WithAllOnesScalesTheSameBugWouldGoUnseen) {
    // Why scales must vary (aiter's a8w4 check uses all ones, spec 10.10): with every
    // routed w2 scale equal, reading the neighbour's scale changes nothing.
    Problem problem = generate_problem(testing::small_shape(17, GateMode::interleave), 5);
    std::fill(problem.w2_scale.begin(), problem.w2_scale.end(), std::uint8_t{0x7F - 7});
    const ReferenceOutput reference = compute_reference(problem);
    const auto wrong = testing::run_cpu_op(problem, testing::basic_candidate(GateMode::interleave),
                                           CpuOpOptions{0, CpuOpFault::stage2_scale_off_by_one});
    EXPECT_TRUE(passes_accuracy(measure_accuracy(reference.out, wrong, AccuracyTolerance{}),
                                testing::kErrRatio));
}

TEST(CpuOp, ReduceModeIsDeterministicAcrossRunsAndThreadCounts) {
    const Problem problem = generate_problem(testing::small_shape(33, GateMode::separated), 8);
    family::Candidate candidate = testing::basic_candidate(GateMode::separated);
    candidate.stage2.mode = Stage2Mode::reduce;
    candidate.stage2.persistent = true;
    CpuFhmoeOp op(problem.shape, candidate, CpuOpOptions{3, CpuOpFault::none});
    std::vector<std::uint16_t> first(problem.x_bf16.size());
    std::vector<std::uint16_t> second(problem.x_bf16.size());
    op.run(problem, first);
    op.run(problem, second);
    EXPECT_EQ(first, second);
    EXPECT_EQ(testing::run_cpu_op(problem, candidate, CpuOpOptions{1, CpuOpFault::none}), first);
}

TEST(CpuOp, AtomicModeOverwritesWhateverTheOutputHeld) {
    const Problem problem = generate_problem(testing::small_shape(5, GateMode::interleave), 4);
    const ReferenceOutput reference = compute_reference(problem);
    CpuFhmoeOp op(problem.shape, testing::basic_candidate(GateMode::interleave));
    std::vector<std::uint16_t> out(problem.x_bf16.size(), std::uint16_t{0x7FC0});  // NaN
    op.run(problem, out);
    op.run(problem, out);  // a second run must not add to the first
    EXPECT_TRUE(passes_accuracy(measure_accuracy(reference.out, out, AccuracyTolerance{}),
                                testing::kErrRatio, kMaxCosineDistance));
}

TEST(CpuOp, FusedAndUnfusedStage1RoundHDifferently) {
    const Problem problem = generate_problem(testing::small_shape(17, GateMode::interleave), 6);
    family::Candidate candidate = testing::basic_candidate(GateMode::interleave);
    candidate.stage2.mode = Stage2Mode::reduce;
    const auto unfused = testing::run_cpu_op(problem, candidate);
    candidate.stage1.fused_fp8_out = true;
    const auto fused = testing::run_cpu_op(problem, candidate);
    EXPECT_NE(unfused, fused);
}

TEST(CpuOp, ReportsStageTimesAndWorkspaceThatFollowTheCandidate) {
    const auto shape = testing::small_shape(9, GateMode::interleave);
    const Problem problem = generate_problem(shape, 2);
    family::Candidate atomic = testing::basic_candidate(GateMode::interleave);
    family::Candidate reduce = atomic;
    reduce.stage2.mode = Stage2Mode::reduce;
    family::Candidate fused = atomic;
    fused.stage1.fused_fp8_out = true;
    CpuFhmoeOp atomic_op(shape, atomic);
    // Reduce mode holds a row per slot; unfused stage1 holds a bf16 h before quantizing it.
    EXPECT_GT(CpuFhmoeOp(shape, reduce).workspace_bytes(), atomic_op.workspace_bytes());
    EXPECT_LT(CpuFhmoeOp(shape, fused).workspace_bytes(), atomic_op.workspace_bytes());

    std::vector<std::uint16_t> out(problem.x_bf16.size());
    tuning::StageSplit stages;
    atomic_op.run(problem, out, &stages);
    EXPECT_GT(stages.stage1_us, 0.0);
    EXPECT_GT(stages.stage2_us, 0.0);
    EXPECT_GT(stages.quant_us, 0.0);
    EXPECT_GE(stages.sort_us, 0.0);
    EXPECT_GE(stages.reduce_us, 0.0);
}

TEST(CpuOp, RejectsAProblemOfAnotherShapeOrAWrongSizedOutput) {
    const auto shape = testing::small_shape(4, GateMode::interleave);
    CpuFhmoeOp op(shape, testing::basic_candidate(GateMode::interleave));
    const Problem other = generate_problem(testing::small_shape(5, GateMode::interleave), 1);
    std::vector<std::uint16_t> out(other.x_bf16.size());
    EXPECT_THROW(op.run(other, out), Error);
    const Problem problem = generate_problem(shape, 1);
    std::vector<std::uint16_t> short_out(problem.x_bf16.size() - 1);
    EXPECT_THROW(op.run(problem, short_out), Error);
}

}  // namespace
}  // namespace fhmoe::kernels
