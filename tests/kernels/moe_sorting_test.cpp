#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>

#include "cpu/moe_sorting.hpp"
#include "kernels/kernel_test_support.hpp"

namespace fhmoe::kernels {
namespace {

// The gpu stages size their grids and stage1 its K split by this bound before the routing is
// known: it must hold for every routing and be reached by one. Every way to place n entries
// on E experts (n <= 9, E <= 5), against the formula.
TEST(MoeSorting, TheRowsBoundIsTheMostAnyRoutingFills) {
    ProblemDims dims(testing::small_shape(1, family::GateMode::interleave));
    dims.topk = 1;
    for (std::int64_t experts = 1; experts <= 5; ++experts) {
        for (std::int64_t entries = 1; entries <= 9; ++entries) {
            for (std::int64_t block_m : {1, 2, 3, 4, 16}) {
                std::int64_t most = 0;
                std::function<void(std::int64_t, std::int64_t, std::int64_t)> place =
                    [&](std::int64_t expert, std::int64_t left, std::int64_t rows) {
                        if (expert == experts) {
                            if (left == 0) most = std::max(most, rows);
                            return;
                        }
                        for (std::int64_t n = 0; n <= left; ++n) {
                            place(expert + 1, left - n,
                                  rows + (n + block_m - 1) / block_m * block_m);
                        }
                    };
                place(0, entries, 0);
                dims.experts = experts;
                dims.tokens = entries;
                EXPECT_EQ(dims.sorted_rows_bound(block_m), most)
                    << experts << " experts, " << entries << " entries, block_m " << block_m;
            }
        }
    }
}

TEST(MoeSorting, GroupsEverySlotOnceIntoSingleExpertBlocks) {
    for (int block_m : {1, 16, 32, 128}) {
        const auto shape = testing::small_shape(23, family::GateMode::interleave);
        const Problem problem = generate_problem(shape, 12);
        const ProblemDims dims(shape);
        SortedRouting routing(dims, block_m);
        sort_tokens_by_expert(problem, routing);

        EXPECT_EQ(routing.valid_rows % block_m, 0);
        EXPECT_LE(routing.valid_rows, dims.sorted_rows_bound(block_m));
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
