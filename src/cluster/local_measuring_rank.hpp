#pragma once

// Rank 0's own worker as a MeasuringRank: the supervisor in this process measures, and its
// events are the rank's reports.

#include "cluster/measuring_rank.hpp"
#include "fhmoe/supervisor/supervisor.hpp"

namespace fhmoe::cluster {

class LocalMeasuringRank final : public MeasuringRank {
public:
    explicit LocalMeasuringRank(supervisor::Supervisor& supervisor) : supervisor_(supervisor) {}

    // The supervisor runs one chunk or race at a time (supervisor.hpp).
    bool has_room() const override { return supervisor_.idle(); }
    void start_chunk(supervisor::Chunk chunk) override;
    void start_race(supervisor::Race race) override;
    void interrupt() override { supervisor_.request_stop(); }
    std::vector<RankReport> take_reports() override;
    int wait_fd() const override { return supervisor_.wait_fd(); }

private:
    supervisor::Supervisor& supervisor_;
};

}  // namespace fhmoe::cluster
