#pragma once

// A rank that measures, as rank 0's Coordinator drives it: it is handed a chunk or a race,
// can be interrupted, and reports what happened. Rank 0's own supervised worker
// (local_measuring_rank.hpp) and every other rank over MPI (mpi_measuring_rank.hpp) are
// both one, so the Coordinator treats them alike and is tested with a fake one, without
// mpiexec (tests/cluster/coordinator_test.cpp).

#include <string>
#include <variant>
#include <vector>

#include "fhmoe/supervisor/chunk.hpp"
#include "fhmoe/supervisor/events.hpp"

namespace fhmoe::cluster {

// The rank is ready for work (an MPI rank's hello; rank 0's own worker needs none).
struct RankJoined {
    std::string host;
    std::string backend;
    std::string device_binding;
};

// The launcher signalled the rank: the run stops in order.
struct RankSignalled {};

// The rank cannot go on (exit code, why): the run stops, and ends with that code.
struct RankFailed {
    int exit_code = 0;
    std::string reason;
};

// A supervisor event (a result, a chunk or race done, a load...) or news about the rank.
using RankReport = std::variant<supervisor::Event, RankJoined, RankSignalled, RankFailed>;

class MeasuringRank {
public:
    virtual ~MeasuringRank() = default;

    // Whether the rank itself has room for work; the Coordinator also tracks what it handed
    // out and what came back, so an adapter that cannot tell says true.
    virtual bool has_room() const = 0;
    virtual void start_chunk(supervisor::Chunk chunk) = 0;
    virtual void start_race(supervisor::Race race) = 0;
    // Stops the work in flight: its candidates report (not_run for the unmeasured) within the
    // stop grace. The Coordinator sends it once, when the run begins to stop.
    virtual void interrupt() = 0;
    // What the rank reported since the last call, in the order it happened; never waits.
    virtual std::vector<RankReport> take_reports() = 0;
    // A descriptor that becomes readable when take_reports() has something, or -1 when the
    // rank can only be asked (MPI): the Coordinator then asks every mpi_probe_interval_ms.
    virtual int wait_fd() const = 0;
};

}  // namespace fhmoe::cluster
