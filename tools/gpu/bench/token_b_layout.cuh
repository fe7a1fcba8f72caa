#pragma once

// One token's activations in the wgmma B layout (no swizzle, K-major; two core matrices of
// 8 token rows x 16 bytes per 32-wide K block), as the persistent one-launch kernels of
// tools/gpu/bench write them into shared memory themselves: token row 0 only, the other rows
// left zero. The order inside a row is the one the op's upload gives the weights
// (gpu/matrix_warpgroup_gemm.hpp: lane t's elements 8t..8t+7, even ones in core matrix 0, odd
// ones in 1).

#include <cstdint>

#include "gpu/lane_group_quant.hpp"
#include "gpu/matrix_layout.hpp"
#include "gpu/matrix_warpgroup_gemm.hpp"

// Block `block` of one token, element i in lane i, quantized to MXFP8 by the lanes together
// into `blocks`, its scale as a BF16 factor into `factors[block]`. Every lane must call it.
__device__ __forceinline__ void quantize_into_b(float value, int block, std::uint8_t* blocks,
                                                std::uint16_t* factors) {
    namespace gpu = fhmoe::kernels::gpu;
    std::uint8_t scale = 0;
    const std::uint8_t code = gpu::quantize_mx_fp8_by_lanes(value, scale);
    const unsigned i = threadIdx.x % 32;
    blocks[block * gpu::kWarpgroupBlockBytes + (i & 1) * 128 + (i >> 3) * 4 + ((i & 7) >> 1)] =
        code;
    if (i == 0) factors[block] = gpu::mx_scale_factor_bf16(scale);
}
