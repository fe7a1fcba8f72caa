#include "fhmoe/worker/backend.hpp"

#include <string>

#include "cpu_backend.hpp"
#include "sim_backend.hpp"
#if defined(FHMOE_GPU_BACKEND_CUDA) || defined(FHMOE_GPU_BACKEND_HIP)
#include "gpu/gpu_device.hpp"
#include "gpu_backend.hpp"
#endif

namespace fhmoe::worker {

std::unique_ptr<Backend> make_backend(BackendKind kind, const BackendOptions& options) {
    switch (kind) {
        case BackendKind::cpu: return make_cpu_backend(options);
        case BackendKind::sim: return make_sim_backend(options);
        case BackendKind::gpu:
#if defined(FHMOE_GPU_BACKEND_CUDA) || defined(FHMOE_GPU_BACKEND_HIP)
            return make_gpu_backend(options);
#else
            throw BackendNotAvailable(
                "backend 'gpu' is not built into this fhmoe_worker (valid here: cpu, sim)");
#endif
    }
    throw InternalError("backend kind " + std::to_string(static_cast<int>(kind)));
}

int visible_device_count(BackendKind kind) {
    switch (kind) {
        case BackendKind::cpu:
        case BackendKind::sim: return 0;
        case BackendKind::gpu:
#if defined(FHMOE_GPU_BACKEND_CUDA) || defined(FHMOE_GPU_BACKEND_HIP)
            return kernels::gpu::gpu_device_count();
#else
            throw BackendNotAvailable(
                "backend 'gpu' is not built into this fhmoe_worker (valid here: cpu, sim)");
#endif
    }
    throw InternalError("backend kind " + std::to_string(static_cast<int>(kind)));
}

}  // namespace fhmoe::worker
