#pragma once

// The gpu backend: kernels/gpu's GpuFhmoeOp on the device the rank chose, timed with device
// events. Only in builds with FHMOE_GPU_BACKEND=CUDA or HIP.

#include <memory>

#include "fhmoe/worker/backend.hpp"

namespace fhmoe::worker {

// Binds options.device_index (with CUDA_VISIBLE_DEVICES naming one device, that is 0).
std::unique_ptr<Backend> make_gpu_backend(const BackendOptions& options);

}  // namespace fhmoe::worker
