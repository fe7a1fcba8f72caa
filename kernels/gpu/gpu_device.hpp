#pragma once

// The device the process measures on, for host code that must not see a vendor header:
// binding, facts, free memory, and the faults the worker injects for real.

#include <cstdint>
#include <string>

namespace fhmoe::kernels::gpu {

struct GpuDeviceFacts {
    int ordinal = 0;
    std::string name;      // "NVIDIA H200"
    std::string identity;  // "GPU-<uuid>" (NVIDIA) or "pci-<bus address>" (AMD)
    std::string arch;      // "sm_90", "gfx90a"
    int multiprocessors = 0;
    std::uint64_t total_bytes = 0;
    std::uint64_t l2_bytes = 0;
    std::uint64_t shared_bytes_per_block = 0;  // opt-in maximum
    int max_threads_per_block = 0;
    std::string driver_version;   // "13.0"
    std::string runtime_version;  // "13.0"
};

// Devices the runtime sees (after CUDA_/ROCR_/HIP_VISIBLE_DEVICES), without creating a context.
int gpu_device_count();

// Makes `ordinal` the calling thread's device and creates its context now, so that start-up
// cost and start-up errors land here rather than in the first timed run.
GpuDeviceFacts bind_gpu_device(int ordinal);

// The bound device's facts (bind_gpu_device first).
const GpuDeviceFacts& bound_gpu_device();

// Makes the bound device the calling thread's too: the runtime's current device is per
// thread, and a helper thread's calls would otherwise go to device 0.
void use_bound_gpu_device();

// Free bytes on the bound device, as the runtime reports them.
std::uint64_t gpu_free_bytes();

// The injected faults, done for real on the device:
// a kernel writes through an illegal device address; the fault surfaces at the
// synchronization that follows (error 700 on NVIDIA) and throws GpuRuntimeError. The
// context is poisoned from then on.
[[noreturn]] void fault_with_illegal_device_address();
// a kernel spins forever and the host waits for it: only the supervisor's deadline ends it.
[[noreturn]] void hang_on_device();
// an allocation of an absurd size really fails: throws GpuOutOfMemory; the context stays
// usable.
void fail_device_allocation();

}  // namespace fhmoe::kernels::gpu
