#pragma once

// The one place that names a device compiler. Number-format code is written once and
// compiled for the host (plain C++), HIP (hipcc) and CUDA (nvcc); the qualifier vanishes
// on the CPU so the same header is ordinary portable C++ there.

#if defined(__CUDACC__) || defined(__HIPCC__)
#define FHMOE_HOST_DEVICE __host__ __device__
#else
#define FHMOE_HOST_DEVICE
#endif

// True while compiling the device side of a translation unit (bit casts use intrinsics there).
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define FHMOE_DEVICE_PASS 1
#else
#define FHMOE_DEVICE_PASS 0
#endif
