#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "fhmoe/kernels/cpu_op.hpp"
#include "kernels/kernel_test_support.hpp"

namespace fhmoe::kernels {
namespace {

using family::Candidate;
using family::GateMode;

void expect_unsupported(const std::function<void(Candidate&)>& change, const std::string& field) {
    Candidate candidate = testing::basic_candidate(GateMode::interleave);
    change(candidate);
    try {
        CpuFhmoeOp op(testing::small_shape(4, GateMode::interleave), candidate);
        ADD_FAILURE() << "expected UnsupportedCandidate naming " << field;
    } catch (const UnsupportedCandidate& error) {
        EXPECT_NE(std::string(error.what()).find(field), std::string::npos) << error.what();
    }
}

TEST(CpuOpValidation, NamesTheFieldItCannotHonour) {
    expect_unsupported([](Candidate& c) { c.stage1.tile_n = 96; },
                       "stage1.tile_n 96 does not divide inter_dim 128");
    expect_unsupported([](Candidate& c) { c.stage1.tile_n = 48; },
                       "stage1.tile_n 48 is not a multiple");
    expect_unsupported([](Candidate& c) { c.stage1.tile_k = 512; },
                       "stage1.tile_k 512 does not divide model_dim 256");
    expect_unsupported([](Candidate& c) { c.stage1.tile_m = 24; },
                       "stage1.tile_m 24 does not divide block_m 32");
    expect_unsupported([](Candidate& c) { c.stage1.waves = 16; }, "stage1.waves 16 is outside");
    expect_unsupported([](Candidate& c) { c.stage1.k_waves = 3; },
                       "stage1.k_waves 3 does not divide");
    // model_dim 256 in K steps of 128: two, so two splits of one K wave at most.
    expect_unsupported([](Candidate& c) { c.stage1.k_splits = 3; },
                       "stage1.k_splits 3 is outside [1, 2]");
    expect_unsupported(
        [](Candidate& c) {
            c.stage1.k_splits = 2;
            c.stage1.k_waves = 2;
        },
        "stage1.k_splits 2 is outside [1, 1]");
    expect_unsupported([](Candidate& c) { c.stage1.gate_mode = GateMode::separated; },
                       "stage1.gate_mode");
    expect_unsupported([](Candidate& c) { c.stage2.tile_m = 64; },
                       "stage2.tile_m 64 does not divide block_m 32");
    expect_unsupported([](Candidate& c) { c.stage2.tile_n = 96; },
                       "stage2.tile_n 96 does not divide model_dim 256");
    expect_unsupported([](Candidate& c) { c.stage2.tile_k = 48; },
                       "stage2.tile_k 48 is not a multiple");
    expect_unsupported([](Candidate& c) { c.stage2.tile_k = 256; },
                       "stage2.tile_k 256 does not divide inter_dim 128");
    expect_unsupported([](Candidate& c) { c.block_m = 0; }, "block_m 0 is outside");
}

TEST(CpuOpValidation, AnInvalidShapeIsAnErrorNotAnUnsupportedCandidate) {
    auto shape = testing::small_shape(4, GateMode::interleave);
    shape.shared_expert_id = 0;
    try {
        CpuFhmoeOp op(shape, testing::basic_candidate(GateMode::interleave));
        ADD_FAILURE() << "expected an Error";
    } catch (const UnsupportedCandidate&) {
        ADD_FAILURE() << "a shape problem is not the candidate's fault";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("shared_expert_id"), std::string::npos);
    }
}

TEST(CpuOpValidation, ThreadCountIsBounded) {
    const auto shape = testing::small_shape(4, GateMode::interleave);
    const auto candidate = testing::basic_candidate(GateMode::interleave);
    EXPECT_THROW(CpuFhmoeOp(shape, candidate, CpuOpOptions{kMaxCpuThreads + 1, CpuOpFault::none}),
                 Error);
    // Stage1's waves get their own threads even when the op is given fewer.
    Candidate wide = candidate;
    wide.stage1.waves = 4;
    EXPECT_EQ(CpuFhmoeOp(shape, wide, CpuOpOptions{1, CpuOpFault::none}).thread_count(), 4);
}

}  // namespace
}  // namespace fhmoe::kernels
