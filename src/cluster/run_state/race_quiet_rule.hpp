#pragma once

// A race decides a shape, and its noise floor is part of the gate's bar (DESIGN.md section
// 3), so a race must run on a device nobody else is using at the time. Ranks of the cpu
// backend share their host's cores: with four ranks on one host, a race run while the other
// ranks measured had noise floors of 20-58 % on the 2-core demo, which hid real wins. Ranks
// of the gpu backend normally own their GPU (one rank per GPU, as --gpus-per-task=1 binds
// them), and then the rule changes nothing for them; two gpu ranks whose workers report the
// same device on one host share it like cpu ranks share a host. sim devices are a model:
// each rank owns its own.
//
// The rule, for an idle rank that shares its device with other ranks (its device group):
//   - while a member of its group races, it starts nothing;
//   - while a race waits in the queue, it starts nothing until every other member of its
//     group is idle, and then it starts the race;
//   - otherwise it takes work as usual (WorkQueue::take_for).
// A rank alone in its group always takes work as usual, so shape affinity is kept.

#include <cstddef>
#include <string>

#include "fhmoe/worker/backend_kind.hpp"

namespace fhmoe::cluster {

enum class RankMayStart { usual_work, a_race, nothing };

struct DeviceGroupActivity {
    std::size_t members = 1;      // ranks sharing the device, the asking one included
    std::size_t busy_others = 0;  // other members with a chunk or a race in flight
    bool racing = false;          // a member has a race in flight
};

RankMayStart what_rank_may_start(const DeviceGroupActivity& group, bool race_waiting);

// The device a rank measures on, as far as sharing goes: the host for the cpu backend (all
// its ranks share the host's cores); for gpu the host and the device its worker reported
// (`device_uuid`, empty until its first shape is loaded); the rank itself otherwise. A rank
// whose host or device is not known yet is alone in its group.
std::string device_group(worker::BackendKind backend, const std::string& host,
                         const std::string& device_uuid, int rank);

}  // namespace fhmoe::cluster
