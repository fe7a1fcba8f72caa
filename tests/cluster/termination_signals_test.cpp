#include <gtest/gtest.h>
#include <poll.h>

#include <csignal>

#include "cluster/mpi_transport/termination_signals.hpp"

namespace fhmoe::cluster {
namespace {

bool readable(int fd) {
    pollfd entry{fd, POLLIN, 0};
    return ::poll(&entry, 1, 0) == 1 && (entry.revents & POLLIN) != 0;
}

TEST(TerminationSignals, SigtermWakesThePollLoopAndIsRemembered) {
    TerminationSignals signals;
    EXPECT_FALSE(signals.requested());
    EXPECT_FALSE(readable(signals.wait_fd()));
    ASSERT_EQ(::raise(SIGTERM), 0);  // the process survives: the handler only records it
    EXPECT_TRUE(signals.requested());
    EXPECT_EQ(signals.signal_number(), SIGTERM);
    EXPECT_TRUE(readable(signals.wait_fd()));
}

// What mpirun and srun pass on to the ranks at once, where SIGTERM to them kills the ranks.
TEST(TerminationSignals, Sigusr1IsAStopRequestToo) {
    TerminationSignals signals;
    ASSERT_EQ(::raise(SIGUSR1), 0);  // the default action would end the process
    EXPECT_TRUE(signals.requested());
    EXPECT_EQ(signals.signal_number(), SIGUSR1);
    EXPECT_TRUE(readable(signals.wait_fd()));
}

TEST(TerminationSignals, FirstSignalWinsAndTheHandlerIsRemovedAfterwards) {
    {
        TerminationSignals signals;
        ASSERT_EQ(::raise(SIGINT), 0);
        ASSERT_EQ(::raise(SIGTERM), 0);
        EXPECT_EQ(signals.signal_number(), SIGINT);
    }
    struct sigaction current;
    ASSERT_EQ(::sigaction(SIGTERM, nullptr, &current), 0);
    EXPECT_EQ(current.sa_handler, SIG_DFL);
    ASSERT_EQ(::sigaction(SIGUSR1, nullptr, &current), 0);
    EXPECT_EQ(current.sa_handler, SIG_DFL);
}

TEST(TerminationSignals, OnlyOneInstanceAtATime) {
    TerminationSignals first;
    EXPECT_ANY_THROW(TerminationSignals second);
}

}  // namespace
}  // namespace fhmoe::cluster
