#include "fhmoe/worker/backend.hpp"

#include <string>

#include "cpu_backend.hpp"
#include "gpu_backend.hpp"
#include "sim_backend.hpp"

namespace fhmoe::worker {

std::unique_ptr<Backend> make_backend(BackendKind kind, const BackendOptions& options) {
    switch (kind) {
        case BackendKind::cpu: return make_cpu_backend(options);
        case BackendKind::sim: return make_sim_backend(options);
        case BackendKind::gpu: return make_gpu_backend(options);
    }
    throw InternalError("backend kind " + std::to_string(static_cast<int>(kind)));
}

int visible_device_count(BackendKind kind) {
    switch (kind) {
        case BackendKind::cpu:
        case BackendKind::sim: return 0;
        case BackendKind::gpu: return gpu_backend_device_count();
    }
    throw InternalError("backend kind " + std::to_string(static_cast<int>(kind)));
}

}  // namespace fhmoe::worker
