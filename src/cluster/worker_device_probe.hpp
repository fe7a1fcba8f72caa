#pragma once

// What a rank must know about its device before the first shape, asked of a short-lived
// `fhmoe_worker --describe-device`: the rank itself never touches the GPU (a device fault
// would poison the rank's own context), so the count of visible devices and the tuned-row
// key (gfx = architecture, cu_num = compute units) come from a worker process.

#include <optional>
#include <string>

#include "fhmoe/family/shape.hpp"
#include "fhmoe/worker/backend_kind.hpp"

namespace fhmoe::cluster {

struct WorkerDeviceDescription {
    int visible_devices = 0;
    std::optional<family::DeviceKey> key;  // present when a device was named
    std::string uuid;
    std::string name;
};

// Runs `worker --backend B --describe-device [--device D]` and parses its key=value lines.
// Throws fhmoe::Error naming the worker's exit status and stderr when it fails (for example
// exit 4: the backend is not in that worker's build).
WorkerDeviceDescription describe_worker_device(const std::string& worker_executable,
                                               worker::BackendKind backend,
                                               std::optional<int> device_index);

// Parses the worker's output (exposed for tests).
WorkerDeviceDescription parse_device_description(const std::string& text);

}  // namespace fhmoe::cluster
