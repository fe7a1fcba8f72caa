#pragma once

// The kernels of the injected device faults (gpu_device.hpp says what each does).

#include <cstdint>

namespace fhmoe::kernels::gpu {

// One thread stores through `address`.
void launch_store_through_address(std::uintptr_t address);
// One thread spins until *flag becomes nonzero.
void launch_spin_until_set(const int* flag);

}  // namespace fhmoe::kernels::gpu
