#pragma once

// GpuProblem's device buffers, for the op's translation unit.

#include <cstdint>
#include <vector>

#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/device_buffer.hpp"

namespace fhmoe::kernels {

struct GpuProblem::Impl {
    struct Copy {
        gpu::DeviceBuffer<std::uint16_t> x_bf16;
        gpu::DeviceBuffer<std::int32_t> topk_ids;
        gpu::DeviceBuffer<float> topk_weights;
        gpu::DeviceBuffer<std::uint8_t> w1_fp4;
        gpu::DeviceBuffer<std::uint8_t> w1_scale;
        gpu::DeviceBuffer<std::uint8_t> w2_fp4;
        gpu::DeviceBuffer<std::uint8_t> w2_scale;
        gpu::DeviceBuffer<std::uint8_t> shared_w1_fp8;
        gpu::DeviceBuffer<std::uint8_t> shared_w1_scale;
        gpu::DeviceBuffer<std::uint8_t> shared_w2_fp8;
        gpu::DeviceBuffer<std::uint8_t> shared_w2_scale;
    };
    family::ShapeKey shape;
    std::vector<Copy> copies;
};

}  // namespace fhmoe::kernels
