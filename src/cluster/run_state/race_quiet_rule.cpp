#include "cluster/run_state/race_quiet_rule.hpp"

namespace fhmoe::cluster {

RankMayStart what_rank_may_start(const DeviceGroupActivity& group, bool race_waiting) {
    if (group.members <= 1) return RankMayStart::usual_work;
    if (group.racing) return RankMayStart::nothing;
    if (!race_waiting) return RankMayStart::usual_work;
    // Waiting for the group to drain, not starting a chunk, is what lets the race begin:
    // otherwise busy neighbours would keep taking chunks and the race would starve.
    return group.busy_others == 0 ? RankMayStart::a_race : RankMayStart::nothing;
}

std::string device_group(worker::BackendKind backend, const std::string& host,
                         const std::string& device_uuid, int rank) {
    if (backend == worker::BackendKind::cpu && !host.empty()) return "cpu@" + host;
    if (backend == worker::BackendKind::gpu && !host.empty() && !device_uuid.empty()) {
        return "gpu@" + host + "/" + device_uuid;
    }
    return "rank " + std::to_string(rank);
}

}  // namespace fhmoe::cluster
