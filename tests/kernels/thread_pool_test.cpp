#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "cpu/thread_pool.hpp"

namespace fhmoe::kernels {
namespace {

TEST(ThreadPool, RunsEveryParticipantOnceAndIsReusable) {
    ThreadPool pool(4);
    for (int participants = 1; participants <= 4; ++participants) {
        for (int round = 0; round < 50; ++round) {
            std::vector<std::atomic<int>> calls(4);
            auto task = [&](int index) { calls[static_cast<std::size_t>(index)].fetch_add(1); };
            pool.run(participants, task);
            for (int index = 0; index < 4; ++index) {
                EXPECT_EQ(calls[static_cast<std::size_t>(index)].load(),
                          index < participants ? 1 : 0);
            }
        }
    }
}

TEST(ThreadPool, RethrowsATasksExceptionAndStaysUsable) {
    ThreadPool pool(3);
    auto failing = [](int index) {
        if (index == 2) throw std::runtime_error("task 2 failed");
    };
    EXPECT_THROW(pool.run(3, failing), std::runtime_error);
    std::atomic<int> sum{0};
    auto adding = [&](int index) { sum.fetch_add(index); };
    pool.run(3, adding);
    EXPECT_EQ(sum.load(), 0 + 1 + 2);
}

TEST(ThreadPool, RefusesMoreParticipantsThanThreads) {
    ThreadPool pool(2);
    auto nothing = [](int) {};
    EXPECT_ANY_THROW(pool.run(3, nothing));
    EXPECT_ANY_THROW(ThreadPool(0));
}

}  // namespace
}  // namespace fhmoe::kernels
