#pragma once

// Programmatic dependent launch (sm_90): a kernel launched with launch_dependent may start
// while the kernel before it on the stream is still running, and must call
// wait_for_previous_kernel() before it reads anything that kernel writes; the kernel before it
// lets it start early with allow_next_kernel(). At decode sizes an op is three short kernels
// whose launch, prologue (routing reads, first weight copies) and tail were serial; with this,
// the next kernel's workgroups are resident and its weight copies in flight while the previous
// kernel's last workgroups finish. CUDA graphs keep the dependency (a programmatic edge).
//
// wait_for_previous_kernel() returns at once when there is no programmatic dependency (a
// plain launch, or a kernel after a memset), and is safe to call more than once. On AMD both
// device calls are empty (the AMD build keeps plain launches).

#include <cstdio>

#include "gpu/portability.hpp"

namespace fhmoe::kernels::gpu {

__device__ __forceinline__ void wait_for_previous_kernel() {
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_next_kernel() {
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

#if defined(FHMOE_GPU_VENDOR_NVIDIA)
// `kernel<<<grid, block, shared_bytes, stream>>>(args)` as a programmatic dependent launch, or
// with `early` false as a plain one (its wait_for_previous_kernel() then returns at once).
template <class Args>
void launch_dependent(void (*kernel)(Args), dim3 grid, dim3 block, std::size_t shared_bytes,
                      hipStream_t stream, const Args& args, bool early = true) {
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = early ? 1 : 0;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = attribute;
    config.numAttrs = 1;
    const hipError_t status = cudaLaunchKernelEx(&config, kernel, args);
    if (status != hipSuccess) {
        // The configuration in the message: a refused launch is mostly a size the kernel or the
        // device does not allow.
        char call[160];
        std::snprintf(call, sizeof call,
                      "cudaLaunchKernelEx(grid %ux%u, block %u, %zu bytes of shared memory)",
                      grid.x, grid.y, block.x, shared_bytes);
        throw_gpu_error(status, call, __FILE__, __LINE__);
    }
}
#endif

}  // namespace fhmoe::kernels::gpu
