// Binding the worker's device, its facts, and the device faults the worker injects.

#include "gpu/gpu_device.hpp"

#include <cstddef>
#include <cstdint>

#include "fhmoe/error.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/fault_kernels.hpp"
#include "gpu/portability.hpp"

namespace fhmoe::kernels::gpu {
namespace {

GpuDeviceFacts bound_facts;
bool bound = false;

std::string version_text(int version) {
    // Both runtimes encode major * 1000 + minor * 10.
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace

int gpu_device_count() {
    int count = 0;
    FHMOE_GPU_CHECK(hipGetDeviceCount(&count));
    return count;
}

GpuDeviceFacts bind_gpu_device(int ordinal) {
    int count = 0;
    FHMOE_GPU_CHECK(hipGetDeviceCount(&count));
    if (ordinal < 0 || ordinal >= count) {
        throw GpuRuntimeError(static_cast<int>(hipErrorInvalidDevice),
                              "device " + std::to_string(ordinal) +
                                  " does not exist: the runtime sees " + std::to_string(count) +
                                  " device(s)");
    }
    FHMOE_GPU_CHECK(hipSetDevice(ordinal));
    FHMOE_GPU_CHECK(hipFree(nullptr));  // creates the context now
    hipDeviceProp_t properties{};
    FHMOE_GPU_CHECK(hipGetDeviceProperties(&properties, ordinal));
    int driver = 0;
    int runtime = 0;
    FHMOE_GPU_CHECK(hipDriverGetVersion(&driver));
    FHMOE_GPU_CHECK(hipRuntimeGetVersion(&runtime));

    GpuDeviceFacts facts;
    facts.ordinal = ordinal;
    facts.name = properties.name;
    facts.identity = device_identity(properties);
    facts.arch = device_arch_name(properties);
    facts.multiprocessors = properties.multiProcessorCount;
    facts.total_bytes = properties.totalGlobalMem;
    facts.l2_bytes = static_cast<std::uint64_t>(properties.l2CacheSize);
#if defined(FHMOE_GPU_VENDOR_AMD)
    facts.shared_bytes_per_block = properties.sharedMemPerBlock;
#else
    facts.shared_bytes_per_block = properties.sharedMemPerBlockOptin;
#endif
    facts.max_threads_per_block = properties.maxThreadsPerBlock;
    facts.driver_version = version_text(driver);
    facts.runtime_version = version_text(runtime);
    bound_facts = facts;
    bound = true;
    return facts;
}

const GpuDeviceFacts& bound_gpu_device() {
    if (!bound) throw InternalError("no gpu device bound: call bind_gpu_device first");
    return bound_facts;
}

void use_bound_gpu_device() { FHMOE_GPU_CHECK(hipSetDevice(bound_gpu_device().ordinal)); }

std::uint64_t gpu_free_bytes() {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    FHMOE_GPU_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

void fault_with_illegal_device_address() {
    // Page 16 of the device's address space is never mapped; the address is a kernel argument
    // so the compiler cannot prove the store undefined and drop it.
    launch_store_through_address(std::uintptr_t{16});
    FHMOE_GPU_CHECK(hipDeviceSynchronize());
    throw InternalError("a store through an illegal device address did not fault");
}

void hang_on_device() {
    int* flag = nullptr;
    FHMOE_GPU_CHECK(hipMalloc(&flag, sizeof(int)));
    FHMOE_GPU_CHECK(hipMemsetAsync(flag, 0, sizeof(int), nullptr));
    launch_spin_until_set(flag);  // nothing ever sets it
    FHMOE_GPU_CHECK(hipDeviceSynchronize());
    throw InternalError("a kernel spinning on a flag nobody sets returned");
}

void fail_device_allocation() {
    // 2^62 bytes exceeds any device's memory: a real allocation failure of the runtime.
    void* memory = nullptr;
    FHMOE_GPU_CHECK(hipMalloc(&memory, std::size_t{1} << 62));
    static_cast<void>(hipFree(memory));
    throw InternalError("an allocation of 2^62 device bytes succeeded");
}

}  // namespace fhmoe::kernels::gpu
