#pragma once

// The standalone activation quantization kernel (aiter's fused_dynamic_mxfp8_quant): bf16
// rows to MXFP8 codes plus one E8M0 scale per 1x32 block. The op runs it on x before stage1,
// and on stage1's bf16 output when stage1 does not fuse the quantization.

#include <cstdint>

namespace fhmoe::kernels {

// Quantizes rows [row_begin, row_end) of a [rows, columns] bf16 matrix.
void quantize_bf16_rows_mxfp8(const std::uint16_t* input, std::int64_t columns,
                              std::int64_t row_begin, std::int64_t row_end, std::uint8_t* codes,
                              std::uint8_t* scales);

// Quantizes `columns` fp32 values (a multiple of 32) of one row.
void quantize_fp32_row_mxfp8(const float* input, std::int64_t columns, std::uint8_t* codes,
                             std::uint8_t* scales);

}  // namespace fhmoe::kernels
