#include "cpu/mxfp8_quant_pass.hpp"

#include "common/bf16.hpp"
#include "common/mx_block.hpp"

namespace fhmoe::kernels {

void quantize_fp32_row_mxfp8(const float* input, std::int64_t columns, std::uint8_t* codes,
                             std::uint8_t* scales) {
    for (std::int64_t block = 0; block < columns / kMxBlockSize; ++block) {
        scales[block] =
            quantize_mx_block_fp8(input + block * kMxBlockSize, codes + block * kMxBlockSize);
    }
}

void quantize_bf16_rows_mxfp8(const std::uint16_t* input, std::int64_t columns,
                              std::int64_t row_begin, std::int64_t row_end, std::uint8_t* codes,
                              std::uint8_t* scales) {
    const std::int64_t blocks = columns / kMxBlockSize;
    float values[kMxBlockSize];
    for (std::int64_t row = row_begin; row < row_end; ++row) {
        for (std::int64_t block = 0; block < blocks; ++block) {
            const std::uint16_t* source = input + row * columns + block * kMxBlockSize;
            for (int i = 0; i < kMxBlockSize; ++i) values[i] = decode_bf16(source[i]);
            scales[row * blocks + block] =
                quantize_mx_block_fp8(values, codes + row * columns + block * kMxBlockSize);
        }
    }
}

}  // namespace fhmoe::kernels
