#pragma once

// Which device a rank measures on. The launcher decides when it can: with
// `srun --gpus-per-task=1` (or a hand-set CUDA_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES /
// HIP_VISIBLE_DEVICES naming exactly one device) the rank sees one device and uses it.
// Otherwise the rank takes local_rank modulo the number of devices it can see, so ranks of
// one node spread over its GPUs. Pure: the environment is passed in, so it is unit-tested.

#include <functional>
#include <optional>
#include <string>

namespace fhmoe::cluster {

struct DeviceBinding {
    int device_index = -1;      // ordinal inside the visible set; -1 = no device (cpu, sim)
    std::string visible_from;   // the variable that decided it, or "local_rank"/"none"
    std::string visible_value;  // its value as the launcher set it (logged per rank)
    std::string reason;         // one line for the start-up log
    int local_rank = 0;         // the rank's index among the ranks of its node
};

// Looks up an environment variable; returns nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment as an EnvLookup.
EnvLookup process_environment();

// device_count: devices this process can see (0 for the cpu and sim backends).
DeviceBinding choose_device(const EnvLookup& env, int local_rank, int device_count);

}  // namespace fhmoe::cluster
