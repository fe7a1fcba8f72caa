#include "cluster/tuning_device.hpp"

#include <algorithm>
#include <string>
#include <thread>

#include "fhmoe/error.hpp"

namespace fhmoe::cluster {

family::DeviceKey tuning_device_for_backend(worker::BackendKind backend) {
    switch (backend) {
        case worker::BackendKind::cpu: {
            const unsigned threads = std::max(1U, std::thread::hardware_concurrency());
            return family::DeviceKey{"cpu", static_cast<int>(threads)};
        }
        case worker::BackendKind::sim: return family::DeviceKey{"sim", 1};
        case worker::BackendKind::gpu: break;
    }
    throw Error("the " + std::string(worker::backend_name(backend)) +
                " backend is not available in this build");
}

}  // namespace fhmoe::cluster
