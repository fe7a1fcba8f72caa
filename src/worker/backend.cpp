#include "fhmoe/worker/backend.hpp"

#include <string>

#include "cpu_backend.hpp"
#include "sim_backend.hpp"
#if defined(FHMOE_GPU_BACKEND_CUDA) || defined(FHMOE_GPU_BACKEND_HIP)
#include "gpu/gpu_device.hpp"
#include "gpu_backend.hpp"
#endif

namespace fhmoe::worker {

std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& options) {
    if (name == "cpu") return make_cpu_backend(options);
    if (name == "sim") return make_sim_backend(options);
    if (name == "gpu") {
#if defined(FHMOE_GPU_BACKEND_CUDA) || defined(FHMOE_GPU_BACKEND_HIP)
        return make_gpu_backend(options);
#else
        throw BackendNotAvailable(
            "backend 'gpu' is not built into this fhmoe_worker (valid here: cpu, sim)");
#endif
    }
    throw InputError("", 0, 0, "--backend",
                     "unknown backend '" + std::string(name) + "' (valid: cpu, sim, gpu)");
}

int visible_device_count(std::string_view name) {
    if (name == "cpu" || name == "sim") return 0;
    if (name == "gpu") {
#if defined(FHMOE_GPU_BACKEND_CUDA) || defined(FHMOE_GPU_BACKEND_HIP)
        return kernels::gpu::gpu_device_count();
#else
        throw BackendNotAvailable(
            "backend 'gpu' is not built into this fhmoe_worker (valid here: cpu, sim)");
#endif
    }
    throw InputError("", 0, 0, "--backend",
                     "unknown backend '" + std::string(name) + "' (valid: cpu, sim, gpu)");
}

}  // namespace fhmoe::worker
