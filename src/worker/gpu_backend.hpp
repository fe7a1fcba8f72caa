#pragma once

// The gpu backend: kernels/gpu's GpuFhmoeOp on the device the rank chose, timed with device
// events. Implemented by gpu_backend.cpp in builds with FHMOE_GPU_BACKEND=CUDA or HIP, and by
// gpu_backend_unavailable.cpp (both functions throw BackendNotAvailable) in the others.

#include <memory>

#include "fhmoe/worker/backend.hpp"

namespace fhmoe::worker {

// Binds options.device_index (with CUDA_VISIBLE_DEVICES naming one device, that is 0).
std::unique_ptr<Backend> make_gpu_backend(const BackendOptions& options);

// Devices the runtime sees (after CUDA_/ROCR_/HIP_VISIBLE_DEVICES), none bound.
int gpu_backend_device_count();

}  // namespace fhmoe::worker
