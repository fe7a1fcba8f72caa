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

// The same quantization by 4 threads per block, 8 consecutive elements each, stored in the
// matrix path's mma layout (gpu/matrix_layout.hpp): a thread's 8 elements are one 16-byte
// load, and its 8 codes and 8 BF16 values are contiguous there (one 8-byte and one 16-byte
// store). The per-lane form (one element per thread, 10 shuffles, 1- and 2-byte scattered
// stores) took 144 us at 2048 DSV4 tokens, ~8x the pass's bytes at copy bandwidth.
constexpr int kThreadsPerBlock = 4;
constexpr int kElementsPerThread = kMxBlockSize / kThreadsPerBlock;

__global__ void quantize_rows_mxfp8_mma(const std::uint16_t* input, std::int64_t blocks,
                                        std::int64_t columns, std::uint8_t* codes,
                                        std::uint16_t* scales, std::uint16_t* values_bf16) {
    const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * kQuantThreads + threadIdx.x;
    const std::int64_t block = thread / kThreadsPerBlock;
    const int quarter = static_cast<int>(thread % kThreadsPerBlock);
    // Threads past the end take part in the shuffles with zeros and store nothing.
    const bool active = block < blocks;
    float values[kElementsPerThread];
    uint4 raw = make_uint4(0u, 0u, 0u, 0u);
    if (active) {
        raw = *reinterpret_cast<const uint4*>(input + block * kMxBlockSize +
                                              quarter * kElementsPerThread);
    }
    const std::uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
    float max_abs = 0.0f;
    float non_finite = 0.0f;
#pragma unroll
    for (int i = 0; i < kElementsPerThread; ++i) {
        values[i] = decode_bf16(static_cast<std::uint16_t>(words[i / 2] >> (16 * (i % 2))));
        const std::uint32_t bits = float_to_bits(values[i]);
        if (is_finite_bits(bits)) {
            max_abs = fmaxf(max_abs, bits_to_float(bits & kFp32AbsMask));
        } else {
            non_finite = 1.0f;
        }
    }
#pragma unroll
    for (int mask = 1; mask < kThreadsPerBlock; mask <<= 1) {
        max_abs = fmaxf(max_abs, shuffle_xor_32(max_abs, mask));
        non_finite = fmaxf(non_finite, shuffle_xor_32(non_finite, mask));
    }
    if (!active) return;
    const std::uint8_t scale =
        non_finite != 0.0f ? kE8m0NanCode
        : max_abs == 0.0f  ? encode_e8m0_exponent(kE8m0MinExponent)
                           : encode_e8m0_exponent(floor_log2_abs(max_abs) - kFp8E4m3MaxExponent);
    std::uint8_t code[kElementsPerThread];
    std::uint16_t value[kElementsPerThread];
#pragma unroll
    for (int i = 0; i < kElementsPerThread; ++i) {
        const int at = fragment_byte_of(i);
        code[at] = e8m0_is_nan(scale) ? kFp8E4m3NanCode
                                      : encode_mx_fp8_element(values[i], e8m0_exponent(scale));
        value[at] = mx_fp8_value_as_bf16(code[at], scale);
    }
    const std::int64_t per_row = columns / kMxBlockSize;
    const std::int64_t row = block / per_row;
    const std::int64_t in_row = block % per_row;
    uint2 packed_codes;
    __builtin_memcpy(&packed_codes, code, sizeof packed_codes);
    *reinterpret_cast<uint2*>(
        codes + mma_code_offset(row, in_row, quarter * kElementsPerThread, columns)) = packed_codes;
    if (quarter == 0) scales[block] = mx_scale_factor_bf16(scale);
    if (values_bf16 != nullptr) {
        uint4 packed_values;
        __builtin_memcpy(&packed_values, value, sizeof packed_values);
        *reinterpret_cast<uint4*>(values_bf16 + activation_bf16_index(row, in_row,
                                                                      quarter * kElementsPerThread,
                                                                      columns)) = packed_values;
    }
}

// The per-lane quantizer of fused routing and stage1's epilogue on its own (one warp per
// block, row-major codes), so that a test can check it against the reference bit for bit.
__global__ void quantize_rows_mxfp8_by_lanes(const std::uint16_t* input, std::int64_t blocks,
                                             std::uint8_t* codes, std::uint8_t* scales) {
    const std::int64_t block =
        (static_cast<std::int64_t>(blockIdx.x) * kQuantThreads + threadIdx.x) / kMxBlockSize;
    const int lane = static_cast<int>(threadIdx.x) % kMxBlockSize;
    if (block >= blocks) return;  // whole blocks of lanes leave together
    std::uint8_t scale = 0;
    codes[block * kMxBlockSize + lane] =
        quantize_mx_fp8_by_lanes(decode_bf16(input[block * kMxBlockSize + lane]), scale);
    if (lane == 0) scales[block] = scale;
}

}  // namespace

void launch_mxfp8_quant_by_lanes(const std::uint16_t* input, std::int64_t rows,
                                 std::int64_t columns, std::uint8_t* codes, std::uint8_t* scales,
                                 hipStream_t stream) {
    const std::int64_t threads = rows * columns;
    const auto grid = static_cast<unsigned>((threads + kQuantThreads - 1) / kQuantThreads);
    quantize_rows_mxfp8_by_lanes<<<grid, kQuantThreads, 0, stream>>>(input, threads / kMxBlockSize,
                                                                     codes, scales);
    FHMOE_GPU_CHECK_LAUNCH();
}

void launch_mxfp8_quant_mma(const std::uint16_t* input, std::int64_t rows, std::int64_t columns,
                            std::uint8_t* codes, std::uint16_t* scales, std::uint16_t* values_bf16,
                            hipStream_t stream) {
    const std::int64_t blocks = rows * columns / kMxBlockSize;
    const std::int64_t per_workgroup = kQuantThreads / kThreadsPerBlock;
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
