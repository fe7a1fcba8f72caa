#include "fhmoe/family/memory_estimate.hpp"

#include <gtest/gtest.h>

#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/family/legality.hpp"

namespace fhmoe::family {
namespace {

ShapeKey tiny_shape() {
    ShapeKey shape = dsv4_i384_shape(2);
    shape.model_dim = 64;
    shape.inter_dim = 32;
    shape.expert = 3;
    shape.topk = 2;
    shape.shared_expert_id = 2;
    return shape;
}

TEST(MemoryEstimate, MatchesAHandCountForATinyShape) {
    // M 2, H 64, I 32, E 3, topk 2, block_m 16.
    const Candidate fused_atomic{16,
                                 {16, 32, 64, 1, 1, GateMode::interleave, true},
                                 {16, 64, 32, Stage2Mode::atomic, false}};
    const MemoryEstimate estimate = estimate_device_memory(tiny_shape(), fused_atomic);
    const std::uint64_t x = 2 * 64 * 2;                 // bf16 [2,64]
    const std::uint64_t routing = 2 * (2 * 2) * 4;      // ids + weights [2,2]
    const std::uint64_t w1 = 3 * 64 * 32 + 3 * 64 * 2;  // fp4 [3,64,32] + scales [3,64,2]
    const std::uint64_t w2 = 3 * 64 * 16 + 3 * 64 * 1;  // fp4 [3,64,16] + scales [3,64,1]
    const std::uint64_t shared_w1 = 64 * 64 + 64 * 2;   // fp8 [64,64] + scales [64,2]
    const std::uint64_t shared_w2 = 64 * 32 + 64 * 1;   // fp8 [64,32] + scales [64,1]
    EXPECT_EQ(estimate.inputs, x + routing + w1 + w2 + shared_w1 + shared_w2);
    EXPECT_EQ(estimate.inputs, 16416U);
    const std::uint64_t sorted = 2 * 2 + 3 * 16 - 2;           // 50 entries
    EXPECT_EQ(estimate.sort, sorted * 4 * 2 + 4 * 4 + 2 * 4);  // ids, weights, 4 blocks, valid
    EXPECT_EQ(estimate.quantized_input, 2U * 64 + 2 * 2);
    EXPECT_EQ(estimate.stage1_output, 4U * 32 + 4 * 1);  // MXFP8 [4,32] + scales
    EXPECT_EQ(estimate.stage2_output, 2U * 64 * 2);      // bf16 out [2,64]
    EXPECT_EQ(estimate_device_bytes(tiny_shape(), fused_atomic), 17360U);

    Candidate unfused_reduce = fused_atomic;
    unfused_reduce.stage1.fused_fp8_out = false;
    unfused_reduce.stage2.mode = Stage2Mode::reduce;
    const MemoryEstimate bigger = estimate_device_memory(tiny_shape(), unfused_reduce);
    EXPECT_EQ(bigger.stage1_output, estimate.stage1_output + 4 * 32 * 2);  // + bf16 [4,32]
    EXPECT_EQ(bigger.stage2_output, estimate.stage2_output + 4 * 64 * 2);  // + bf16 [4,64]
    EXPECT_EQ(bigger.total(), 18128U);

    // A fixed K split keeps FP32 gate and up partials per split and sorted row; one split or
    // the derived one (bounded to a wave of the device) none.
    Candidate split = fused_atomic;
    split.stage1.k_splits = 2;
    EXPECT_EQ(estimate_device_memory(tiny_shape(), split).stage1_partials,
              2U * sorted * 32 * 2 * 4);
    EXPECT_EQ(estimate_device_bytes(tiny_shape(), split), 17360U + 2 * sorted * 32 * 2 * 4);
    split.stage1.k_splits = 1;
    EXPECT_EQ(estimate_device_memory(tiny_shape(), split).stage1_partials, 0U);
    EXPECT_EQ(estimate.stage1_partials, 0U);
}

TEST(MemoryEstimate, ReduceNeedsMoreThanAtomic) {
    for (const ShapeKey& shape : dsv4_i384_shapes()) {
        Candidate atomic = default_candidate(shape);
        Candidate reduce = atomic;
        reduce.stage2.mode = Stage2Mode::reduce;
        EXPECT_GT(estimate_device_bytes(shape, reduce), estimate_device_bytes(shape, atomic));
        Candidate unfused = atomic;
        unfused.stage1.fused_fp8_out = false;
        EXPECT_GT(estimate_device_bytes(shape, unfused), estimate_device_bytes(shape, atomic));
    }
}

TEST(MemoryEstimate, GrowsWithTokensAndBlock) {
    std::uint64_t previous = 0;
    for (std::int64_t token = 1; token <= 131072; token *= 2) {
        const ShapeKey shape = dsv4_i384_shape(token);
        const Candidate candidate = default_candidate(dsv4_i384_shape(1));
        const std::uint64_t bytes = estimate_device_bytes(shape, candidate);
        EXPECT_GT(bytes, previous) << "token " << token;
        previous = bytes;
    }
    const ShapeKey shape = dsv4_i384_shape(256);
    std::uint64_t by_block = 0;
    for (int block_m : kBlockMAxis) {
        Candidate candidate = default_candidate(shape);
        candidate.block_m = candidate.stage1.tile_m = candidate.stage2.tile_m = block_m;
        const std::uint64_t bytes = estimate_device_bytes(shape, candidate);
        EXPECT_GT(bytes, by_block) << "block_m " << block_m;
        by_block = bytes;
    }
}

TEST(MemoryEstimate, Dsv4WeightsAreAboutTheSpecsFigure) {
    // Spec 6.3: all 385 experts ~1.70 GB (it pads w2 scales to 16 columns; this layout keeps
    // the 12 real ones), plus ~8.3 MB shared.
    const MemoryEstimate estimate =
        estimate_device_memory(dsv4_i384_shape(1), default_candidate(dsv4_i384_shape(1)));
    EXPECT_GT(estimate.inputs, 1'650'000'000U);
    EXPECT_LT(estimate.inputs, 1'750'000'000U);
    EXPECT_LT(estimate.workspace(), 10'000'000U);
}

TEST(MemoryEstimate, RejectsAnUnsupportedShape) {
    ShapeKey shape = tiny_shape();
    shape.model_dim = 48;
    EXPECT_THROW(estimate_device_bytes(shape, Candidate{}), UnsupportedShape);
}

}  // namespace
}  // namespace fhmoe::family
