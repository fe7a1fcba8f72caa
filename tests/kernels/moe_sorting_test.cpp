#include <gtest/gtest.h>

#include <set>

#include "cpu/moe_sorting.hpp"
#include "kernels/kernel_test_support.hpp"

namespace fhmoe::kernels {
namespace {

TEST(MoeSorting, GroupsEverySlotOnceIntoSingleExpertBlocks) {
    for (int block_m : {1, 16, 32, 128}) {
        const auto shape = testing::small_shape(23, family::GateMode::interleave);
        const Problem problem = generate_problem(shape, 12);
        const ProblemDims dims(shape);
        SortedRouting routing(dims, block_m);
        sort_tokens_by_expert(problem, routing);

        EXPECT_EQ(routing.valid_rows % block_m, 0);
        std::set<std::pair<std::int64_t, std::int64_t>> seen;
        std::int64_t previous_expert = -1;
        for (std::int64_t row = 0; row < routing.valid_rows; ++row) {
            const auto entry = routing.sorted_ids[static_cast<std::size_t>(row)];
            const std::int64_t expert =
                routing.block_experts[static_cast<std::size_t>(row / block_m)];
            EXPECT_GE(expert, previous_expert);  // expert order
            previous_expert = expert;
            const std::int64_t token = sorted_token(entry);
            if (token == dims.tokens) {
                EXPECT_EQ(routing.sorted_weights[static_cast<std::size_t>(row)], 0.0f);
                continue;
            }
            const std::int64_t slot = sorted_slot(entry);
            const auto index = static_cast<std::size_t>(token * dims.topk + slot);
            EXPECT_EQ(problem.topk_ids[index], expert);
            EXPECT_EQ(problem.topk_weights[index],
                      routing.sorted_weights[static_cast<std::size_t>(row)]);
            EXPECT_TRUE(seen.emplace(token, slot).second);
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(dims.slot_rows()));
    }
}

TEST(MoeSorting, TheSharedExpertGetsEveryTokenInOneSegment) {
    const auto shape = testing::small_shape(40, family::GateMode::interleave);
    const Problem problem = generate_problem(shape, 13);
    SortedRouting routing(ProblemDims(shape), 32);
    sort_tokens_by_expert(problem, routing);
    // The shared expert (last) owns the last ceil(40/32) = 2 blocks.
    const std::int64_t blocks = routing.valid_rows / 32;
    EXPECT_EQ(routing.block_experts[static_cast<std::size_t>(blocks - 1)], 16);
    EXPECT_EQ(routing.block_experts[static_cast<std::size_t>(blocks - 2)], 16);
    EXPECT_NE(routing.block_experts[static_cast<std::size_t>(blocks - 3)], 16);
}

}  // namespace
}  // namespace fhmoe::kernels
