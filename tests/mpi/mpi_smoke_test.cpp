// Proves the MPI plumbing the tuner relies on: every rank reaches rank 0 and back, with a
// payload that identifies the sender, under mpiexec -n 4.

#include <gtest/gtest.h>
#include <mpi.h>

#include <set>
#include <string>
#include <vector>

#include "fhmoe/cluster/mpi_environment.hpp"

namespace {

constexpr int kPingTag = 11;
constexpr int kPongTag = 12;

TEST(MpiSmoke, RunsWithFourRanks) { EXPECT_EQ(fhmoe::cluster::world_size(), 4); }

TEST(MpiSmoke, EveryRankExchangesWithRankZero) {
    const int rank = fhmoe::cluster::world_rank();
    const int size = fhmoe::cluster::world_size();
    const std::string host = fhmoe::cluster::processor_name();
    if (rank == 0) {
        std::set<int> seen;
        for (int i = 1; i < size; ++i) {
            int payload[2] = {0, 0};
            MPI_Status status;
            MPI_Recv(payload, 2, MPI_INT, MPI_ANY_SOURCE, kPingTag, MPI_COMM_WORLD, &status);
            EXPECT_EQ(payload[0], status.MPI_SOURCE);
            EXPECT_EQ(payload[1], status.MPI_SOURCE * 1000 + 7);
            seen.insert(status.MPI_SOURCE);
            int reply = payload[1] + 1;
            MPI_Send(&reply, 1, MPI_INT, status.MPI_SOURCE, kPongTag, MPI_COMM_WORLD);
        }
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(size - 1));
    } else {
        int payload[2] = {rank, rank * 1000 + 7};
        MPI_Send(payload, 2, MPI_INT, 0, kPingTag, MPI_COMM_WORLD);
        int reply = 0;
        MPI_Recv(&reply, 1, MPI_INT, 0, kPongTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT_EQ(reply, rank * 1000 + 8);
    }
    EXPECT_FALSE(host.empty());
}

}  // namespace
