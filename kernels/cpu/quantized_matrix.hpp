#pragma once

// Read access to one expert's weight matrix [rows, K] in either storage the op meets:
// routed MXFP4 (fp4x2 codes) or the shared expert's FP8 e4m3, both with one E8M0 scale per
// 1x32 block along K. Decoding goes through 16- and 256-entry tables, as a GPU kernel's
// register lookup would.

#include <array>
#include <cstdint>

#include "common/e8m0.hpp"
#include "common/fp4_e2m1.hpp"
#include "common/fp8_e4m3.hpp"
#include "common/mx_block.hpp"

namespace fhmoe::kernels {

struct DecodeTables {
    std::array<float, 16> fp4;
    std::array<float, 256> fp8;
    std::array<float, 256> e8m0;
};

inline const DecodeTables& decode_tables() {
    static const DecodeTables tables = [] {
        DecodeTables built{};
        for (int code = 0; code < 16; ++code) {
            built.fp4[static_cast<std::size_t>(code)] =
                decode_fp4_e2m1(static_cast<std::uint8_t>(code));
        }
        for (int code = 0; code < 256; ++code) {
            built.fp8[static_cast<std::size_t>(code)] =
                decode_fp8_e4m3(static_cast<std::uint8_t>(code));
            built.e8m0[static_cast<std::size_t>(code)] =
                decode_e8m0(static_cast<std::uint8_t>(code));
        }
        return built;
    }();
    return tables;
}

struct QuantizedMatrix {
    const std::uint8_t* codes = nullptr;   // fp4x2: rows * K / 2 bytes; fp8: rows * K
    const std::uint8_t* scales = nullptr;  // rows * K / 32
    std::int64_t k = 0;
    bool fp4 = true;
    // Planted bug for tests and fault injection: read the scale `scale_block_skew` blocks
    // further along the row (wrapping), a scale-indexing error a real kernel can have.
    std::int64_t scale_block_skew = 0;

    // The 32 dequantized values of block `block` of row `row`.
    void dequantize_block(std::int64_t row, std::int64_t block, float* out) const {
        const DecodeTables& tables = decode_tables();
        const std::int64_t blocks = k / kMxBlockSize;
        const std::int64_t scale_block = (block + scale_block_skew) % blocks;
        const float scale = tables.e8m0[scales[row * blocks + scale_block]];
        if (fp4) {
            const std::uint8_t* packed = codes + (row * k + block * kMxBlockSize) / 2;
            for (int i = 0; i < kMxBlockSize / 2; ++i) {
                out[2 * i] = tables.fp4[packed[i] & 0x0F] * scale;
                out[2 * i + 1] = tables.fp4[packed[i] >> 4] * scale;
            }
        } else {
            const std::uint8_t* row_codes = codes + row * k + block * kMxBlockSize;
            for (int i = 0; i < kMxBlockSize; ++i) out[i] = tables.fp8[row_codes[i]] * scale;
        }
    }
};

}  // namespace fhmoe::kernels
