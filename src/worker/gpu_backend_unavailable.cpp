// The gpu backend of a build without a device compiler (FHMOE_GPU_BACKEND=NONE): the one
// place that says it is not built, instead of an #if FHMOE_GPU_BACKEND_* pair at each use.
// src/worker/CMakeLists.txt compiles this file or gpu_backend.cpp, never both.

#include "gpu_backend.hpp"

namespace fhmoe::worker {
namespace {

[[noreturn]] void gpu_backend_not_built() {
    throw BackendNotAvailable(
        "backend 'gpu' is not built into this fhmoe_worker (valid here: cpu, sim)");
}

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const BackendOptions& /*options*/) {
    gpu_backend_not_built();
}

int gpu_backend_device_count() { gpu_backend_not_built(); }

}  // namespace fhmoe::worker
