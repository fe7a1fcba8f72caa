#pragma once

// Another rank over MPI as a MeasuringRank: work and the interrupt are messages to it, and
// its messages (mpi_messages.hpp) are its reports. The rank's own loop is member_loop.hpp.

#include <functional>

#include "cluster/measuring_rank.hpp"
#include "cluster/mpi_transport/mpi_channel.hpp"

namespace fhmoe::cluster {

class MpiMeasuringRank final : public MeasuringRank {
public:
    MpiMeasuringRank(MpiChannel& channel, int rank) : channel_(channel), rank_(rank) {}

    // Rank 0 learns a member's readiness only from its messages (hello, chunk_done,
    // race_done), which the Coordinator tracks.
    bool has_room() const override { return true; }
    void start_chunk(supervisor::Chunk chunk) override;
    void start_race(supervisor::Race race) override;
    void interrupt() override;
    // Also completes what it can of the channel's pending sends, so a large assignment is
    // not left waiting on MPI's progress while rank 0 sleeps.
    std::vector<RankReport> take_reports() override;
    int wait_fd() const override { return -1; }  // MPI has no descriptor to poll()

private:
    MpiChannel& channel_;
    int rank_;
};

// Tells every rank but 0 to leave with `exit_code` and waits (bounded) until each one has
// acknowledged (member_release.hpp). A result that still arrives meanwhile goes to
// `on_late_result`: it is evidence, and a resume need not measure it again. False when some
// rank did not acknowledge in time.
bool release_measuring_members(
    MpiChannel& channel, int world_size, int exit_code,
    const std::function<void(const supervisor::CandidateMeasured&)>& on_late_result);

}  // namespace fhmoe::cluster
