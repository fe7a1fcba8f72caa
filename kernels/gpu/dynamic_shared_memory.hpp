#pragma once

// A kernel's dynamic shared memory beyond the default 48 KiB must be allowed first
// (hipFuncAttributeMaxDynamicSharedMemorySize). Raised only past the default, never set lower:
// a limit set below 48 KiB would refuse a later launch of the same kernel that needs up to
// 48 KiB without asking (found with the warpgroup builds, 2026-12-03). Host code.

#include "gpu/portability.hpp"

namespace fhmoe::kernels::gpu {

inline constexpr int kDefaultDynamicSharedBytes = 48 * 1024;

template <class Kernel>
void allow_dynamic_shared_memory(Kernel kernel, int bytes) {
    if (bytes > kDefaultDynamicSharedBytes) {
        FHMOE_GPU_CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                            hipFuncAttributeMaxDynamicSharedMemorySize, bytes));
    }
}

}  // namespace fhmoe::kernels::gpu
