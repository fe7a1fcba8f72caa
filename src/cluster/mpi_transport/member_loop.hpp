#pragma once

// The loop of every rank but 0: say hello, then measure what rank 0 assigns on this rank's
// own supervised worker and forward every event to rank 0 as it happens (a result is sent
// the moment its frame arrives from the worker). A signal from the launcher (srun delivers
// SIGTERM to every task) stops the work in flight within the grace period and tells rank 0,
// which runs the orderly stop; the rank leaves only when rank 0 says `stop`, after all its
// sends completed, so nothing it measured is left unsent.

#include <string>

#include "cluster/mpi_transport/mpi_channel.hpp"
#include "cluster/mpi_transport/termination_signals.hpp"
#include "fhmoe/supervisor/supervisor.hpp"

namespace fhmoe::cluster {

struct MemberContext {
    int rank = -1;
    HelloMessage hello;
    supervisor::Supervisor* supervisor = nullptr;
    TerminationSignals* signals = nullptr;
    MpiChannel* channel = nullptr;
};

// Returns the exit code rank 0 sent with `stop`.
int run_member(const MemberContext& context);

}  // namespace fhmoe::cluster
