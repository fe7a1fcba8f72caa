#pragma once

// The one place that names a GPU vendor (AMReX/Kokkos style). Device sources are written in
// HIP syntax; on AMD they compile against HIP itself, on NVIDIA nvcc compiles them against
// the CUDA runtime with the hip* names the project uses mapped to their cuda* twins. Debian's
// HIP headers do not compile against CUDA 13, so they are never included on NVIDIA.
//
// Included by kernels/gpu's own translation units only: device ones (*.hip: kernels and
// their launches) and host ones (*.cpp: runtime calls, errors, orchestration). The rest of
// the project talks to the device through kernels/gpu/gpu_device.hpp and
// fhmoe/kernels/gpu_op.hpp. Device ones must not include fhmoe/error.hpp: nvcc 13.0's front
// end crashes on its inheriting constructors (std::source_location default arguments), so
// they report errors through throw_gpu_error, defined in a host translation unit.

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__) || defined(FHMOE_GPU_BACKEND_HIP)
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
// A host-only translation unit of a HIP build (g++): the runtime API without kernels.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>
#endif
#define FHMOE_GPU_VENDOR_AMD 1
#elif defined(__CUDACC__) || defined(FHMOE_GPU_BACKEND_CUDA)
// nvcc for device translation units, the host compiler for host-only ones.
#include <cuda_runtime.h>
#define FHMOE_GPU_VENDOR_NVIDIA 1

using hipError_t = cudaError_t;
using hipStream_t = cudaStream_t;
using hipEvent_t = cudaEvent_t;
using hipDeviceProp_t = cudaDeviceProp;
#define hipSuccess cudaSuccess
#define hipErrorInvalidDevice cudaErrorInvalidDevice
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipGetErrorName cudaGetErrorName
#define hipGetErrorString cudaGetErrorString
#define hipGetLastError cudaGetLastError
#define hipSetDevice cudaSetDevice
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipMemGetInfo cudaMemGetInfo
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemsetAsync cudaMemsetAsync
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define hipMemset cudaMemset
using hipGraph_t = cudaGraph_t;
using hipGraphExec_t = cudaGraphExec_t;
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipStreamEndCapture cudaStreamEndCapture
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphDestroy cudaGraphDestroy
#define hipGraphExecDestroy cudaGraphExecDestroy
#else
#error "kernels/gpu/portability.hpp needs a HIP or CUDA build (FHMOE_GPU_BACKEND)"
#endif

#include <string>

namespace fhmoe::kernels::gpu {

// Threads that execute in lockstep: a warp on NVIDIA, a wavefront on AMD's CDNA parts.
#if defined(FHMOE_GPU_VENDOR_AMD)
inline constexpr int kWarpSize = 64;
#else
inline constexpr int kWarpSize = 32;
#endif

// "sm_90" / "gfx90a": the instruction set the device runs, as the tuned CSV's gfx column
// names it for this vendor.
inline std::string device_arch_name(const hipDeviceProp_t& properties) {
#if defined(FHMOE_GPU_VENDOR_AMD)
    std::string arch = properties.gcnArchName;
    return arch.substr(0, arch.find(':'));
#else
    return "sm_" + std::to_string(properties.major) + std::to_string(properties.minor);
#endif
}

// A stable identity of the physical device: the UUID on NVIDIA, the PCI address on AMD
// (HIP 5.2 reports no UUID).
std::string device_identity(const hipDeviceProp_t& properties);

#if defined(__CUDACC__) || defined(__HIPCC__)
// The value of `value` in lane `lane ^ mask` of this lane's group of 32 (a warp on NVIDIA,
// half a wavefront on AMD).
__device__ inline float shuffle_xor_32(float value, int mask) {
#if defined(FHMOE_GPU_VENDOR_AMD)
    return __shfl_xor(value, mask, 32);
#else
    return __shfl_xor_sync(0xFFFFFFFFu, value, mask, 32);
#endif
}
#endif

// A captured graph made launchable (the two runtimes spell the call differently).
inline hipError_t instantiate_graph(hipGraphExec_t* exec, hipGraph_t graph) {
#if defined(FHMOE_GPU_VENDOR_AMD)
    return hipGraphInstantiate(exec, graph, nullptr, nullptr, 0);
#else
    return cudaGraphInstantiate(exec, graph, 0ULL);
#endif
}

// Throws fhmoe::kernels::GpuOutOfMemory for an allocation failure, GpuRuntimeError otherwise,
// naming the call, file:line and the runtime's own error name and text.
[[noreturn]] void throw_gpu_error(hipError_t error, const char* call, const char* file, int line);

}  // namespace fhmoe::kernels::gpu

// FHMOE_GPU_CHECK(call): the one error check for the device runtime (Ginkgo style).
#define FHMOE_GPU_CHECK(call)                                                                     \
    do {                                                                                          \
        const hipError_t fhmoe_gpu_status_ = (call);                                              \
        if (fhmoe_gpu_status_ != hipSuccess) {                                                    \
            ::fhmoe::kernels::gpu::throw_gpu_error(fhmoe_gpu_status_, #call, __FILE__, __LINE__); \
        }                                                                                         \
    } while (false)

// After a launch: a bad configuration is reported here, a fault in the kernel only at the
// next synchronization.
#define FHMOE_GPU_CHECK_LAUNCH() FHMOE_GPU_CHECK(hipGetLastError())
