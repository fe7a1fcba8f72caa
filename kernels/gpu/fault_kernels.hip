// Kernels that fail on purpose, for the worker's real fault injection.

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares;
// nvcc declares them implicitly, hipcc only through it.
#include "gpu/portability.hpp"

#include "gpu/fault_kernels.hpp"
#include "gpu/portability.hpp"

namespace fhmoe::kernels::gpu {
namespace {

__global__ void store_through_address(std::uintptr_t address) {
    *reinterpret_cast<volatile int*>(address) = 1;
}

__global__ void spin_until_set(const volatile int* flag) {
    while (*flag == 0) {
    }
}

}  // namespace

void launch_store_through_address(std::uintptr_t address) {
    store_through_address<<<1, 1>>>(address);
    FHMOE_GPU_CHECK_LAUNCH();
}

void launch_spin_until_set(const int* flag) {
    spin_until_set<<<1, 1>>>(flag);
    FHMOE_GPU_CHECK_LAUNCH();
}

}  // namespace fhmoe::kernels::gpu
