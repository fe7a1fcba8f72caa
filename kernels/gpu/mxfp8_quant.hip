// The standalone MXFP8 quantization pass (aiter's fused_dynamic_mxfp8_quant): one thread per
// 1x32 block, through the same block quantizer the reference and the cpu backend use.

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares;
// nvcc declares them implicitly, hipcc only through it.
#include "gpu/portability.hpp"

#include "common/bf16.hpp"
#include "common/mx_block.hpp"
#include "gpu/lane_group_quant.hpp"
#include "gpu/matrix_args.hpp"
#include "gpu/routing_kernels.hpp"

namespace fhmoe::kernels::gpu {
namespace {

constexpr int kQuantThreads = 256;

__global__ void quantize_rows_mxfp8(const std::uint16_t* input, std::int64_t blocks,
                                    std::uint8_t* codes, std::uint8_t* scales) {
    const std::int64_t block = static_cast<std::int64_t>(blockIdx.x) * kQuantThreads + threadIdx.x;
    if (block >= blocks) return;
    // Rows are whole blocks, so block b of the matrix is elements [32b, 32b + 32).
    const std::int64_t first = block * kMxBlockSize;
    float values[kMxBlockSize];
#pragma unroll
    for (int i = 0; i < kMxBlockSize; ++i) values[i] = decode_bf16(input[first + i]);
    scales[block] = quantize_mx_block_fp8(values, codes + first);
}

// The same quantization by 32 lanes per block (gpu/lane_group_quant.hpp), stored in the
// matrix path's mma layout.
__global__ void quantize_rows_mxfp8_mma(const std::uint16_t* input, std::int64_t blocks,
                                        std::int64_t columns, std::uint8_t* codes,
                                        std::uint8_t* scales, std::uint16_t* values_bf16) {
    const std::int64_t block =
        (static_cast<std::int64_t>(blockIdx.x) * kQuantThreads + threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    if (block >= blocks) return;
    std::uint8_t scale = 0;
    const std::uint8_t code =
        quantize_mx_fp8_by_lanes(decode_bf16(input[block * kMxBlockSize + lane]), scale);
    const std::int64_t per_row = columns / kMxBlockSize;
    codes[mma_code_offset(block / per_row, block % per_row, lane, columns)] = code;
    if (lane == 0) scales[block] = scale;
    if (values_bf16 != nullptr) {
        values_bf16[activation_bf16_index(block / per_row, block % per_row, lane, columns)] =
            mx_fp8_value_as_bf16(code, scale);
    }
}

}  // namespace

void launch_mxfp8_quant_mma(const std::uint16_t* input, std::int64_t rows, std::int64_t columns,
                            std::uint8_t* codes, std::uint8_t* scales, std::uint16_t* values_bf16,
                            hipStream_t stream) {
    const std::int64_t blocks = rows * columns / kMxBlockSize;
    const std::int64_t per_workgroup = kQuantThreads / 32;
    const auto grid = static_cast<unsigned>((blocks + per_workgroup - 1) / per_workgroup);
    quantize_rows_mxfp8_mma<<<grid, kQuantThreads, 0, stream>>>(input, blocks, columns, codes,
                                                                scales, values_bf16);
    FHMOE_GPU_CHECK_LAUNCH();
}

void launch_mxfp8_quant(const std::uint16_t* input, std::int64_t rows, std::int64_t columns,
                        std::uint8_t* codes, std::uint8_t* scales, hipStream_t stream) {
    const std::int64_t blocks = rows * columns / kMxBlockSize;
    const auto grid = static_cast<unsigned>((blocks + kQuantThreads - 1) / kQuantThreads);
    quantize_rows_mxfp8<<<grid, kQuantThreads, 0, stream>>>(input, blocks, codes, scales);
    FHMOE_GPU_CHECK_LAUNCH();
}

}  // namespace fhmoe::kernels::gpu
