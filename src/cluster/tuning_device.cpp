#include "fhmoe/cluster/tuning_device.hpp"

#include <algorithm>
#include <thread>

#include "fhmoe/error.hpp"

namespace fhmoe::cluster {

family::DeviceKey tuning_device_for_backend(const std::string& backend) {
    if (backend == "cpu") {
        const unsigned threads = std::max(1U, std::thread::hardware_concurrency());
        return family::DeviceKey{"cpu", static_cast<int>(threads)};
    }
    if (backend == "sim") return family::DeviceKey{"sim", 1};
    throw Error("the " + backend + " backend is not available in this build");
}

}  // namespace fhmoe::cluster
