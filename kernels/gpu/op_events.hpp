#pragma once

// The stage boundaries an op records on its stream (host side of the device TUs): start,
// sorted, quantized, stage1, requantized, stage2, reduced. A graph capture records none.

#include <array>
#include <cstddef>

#include "gpu/device_buffer.hpp"
#include "gpu/portability.hpp"

namespace fhmoe::kernels::gpu {

inline constexpr std::size_t kOpEvents = 7;
using OpEvents = std::array<DeviceEvent, kOpEvents>;

inline void mark_stage(const OpEvents* events, std::size_t boundary, hipStream_t stream) {
    if (events != nullptr) FHMOE_GPU_CHECK(hipEventRecord((*events)[boundary].get(), stream));
}

}  // namespace fhmoe::kernels::gpu
