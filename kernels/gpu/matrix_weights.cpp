// Host-side rearrangement of the weights into the matrix path's mma-ready layouts
// (gpu/matrix_layout.hpp says what goes where and why). Experts are independent, so they are
// spread over the host's cores: DSV4 rearranges 1.7 GB per upload.

#include "gpu/matrix_weights.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

#include "common/host_buffer.hpp"
#include "common/host_parallel.hpp"
#include "common/mx_block.hpp"
#include "gpu/matrix_layout.hpp"
#include "problem/gate_up_layout.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels::gpu {
namespace {

// The source rows of mma rows g and g+8 of weight tile `tile`.
using TileRows =
    std::function<void(std::int64_t tile, int g, std::int64_t& row_a, std::int64_t& row_b)>;

struct MatrixShape {
    std::int64_t rows;  // R, a multiple of 16
    std::int64_t k;     // K, a multiple of 64
};

// One weight tile's scale words for rows (row_a, row_b) at mma rows (g, g+8): per pair,
// row_a's two blocks then row_b's.
void arrange_scales(const std::uint8_t* scales, MatrixShape m, std::int64_t tile, int g,
                    std::int64_t row_a, std::int64_t row_b, std::uint8_t* out_scales) {
    const std::int64_t pairs = m.k / kPairK;
    const std::int64_t blocks = m.k / kMxBlockSize;
    for (std::int64_t pair = 0; pair < pairs; ++pair) {
        std::uint8_t* s = out_scales + ((tile * pairs + pair) * 8 + g) * 4;
        s[0] = scales[row_a * blocks + 2 * pair];
        s[1] = scales[row_a * blocks + 2 * pair + 1];
        s[2] = scales[row_b * blocks + 2 * pair];
        s[3] = scales[row_b * blocks + 2 * pair + 1];
    }
}

// A packed MXFP4 byte (element 2k in the low nibble, 2k + 1 in the high one, each s.e1e0.m)
// in the FP4 weights' bit order (gpu/matrix_layout.hpp says which bit goes where and why).
std::uint8_t fp4_pair_for_conversion(std::uint8_t packed) {
    const unsigned low = packed & 0xFu;
    const unsigned high = packed >> 4;
    return static_cast<std::uint8_t>(((low & 7u) << 1) | ((low & 8u) << 4) | ((high & 7u) << 4) |
                                     (high >> 3));
}

void arrange_fp4(const std::uint8_t* codes, const std::uint8_t* scales, MatrixShape m,
                 const TileRows& tile_rows, std::uint8_t* out_codes, std::uint8_t* out_scales) {
    const std::int64_t pairs = m.k / kPairK;
    for (std::int64_t tile = 0; tile < m.rows / kMmaTileRows; ++tile) {
        for (int g = 0; g < 8; ++g) {
            std::int64_t row_a = 0;
            std::int64_t row_b = 0;
            tile_rows(tile, g, row_a, row_b);
            const std::uint8_t* src_a = codes + row_a * m.k / 2;
            const std::uint8_t* src_b = codes + row_b * m.k / 2;
            for (std::int64_t pair = 0; pair < pairs; ++pair) {
                for (int t = 0; t < 4; ++t) {
                    std::uint8_t* dst =
                        out_codes + ((tile * pairs + pair) * 32 + 4 * g + t) * kLaneBytes;
                    for (int half = 0; half < 2; ++half) {
                        const std::int64_t byte = (2 * pair + half) * (kMxBlockSize / 2) + 4 * t;
                        for (int b = 0; b < 4; ++b) {
                            dst[8 * half + b] = fp4_pair_for_conversion(src_a[byte + b]);
                            dst[8 * half + 4 + b] = fp4_pair_for_conversion(src_b[byte + b]);
                        }
                    }
                }
            }
            arrange_scales(scales, m, tile, g, row_a, row_b, out_scales);
        }
    }
}

void arrange_fp8(const std::uint8_t* codes, const std::uint8_t* scales, MatrixShape m,
                 const TileRows& tile_rows, std::uint8_t* out_codes, std::uint8_t* out_scales) {
    const std::int64_t blocks = m.k / kMxBlockSize;
    for (std::int64_t tile = 0; tile < m.rows / kMmaTileRows; ++tile) {
        for (int g = 0; g < 8; ++g) {
            std::int64_t row_a = 0;
            std::int64_t row_b = 0;
            tile_rows(tile, g, row_a, row_b);
            for (std::int64_t block = 0; block < blocks; ++block) {
                for (int t = 0; t < 4; ++t) {
                    std::uint8_t* dst =
                        out_codes + ((tile * blocks + block) * 32 + 4 * g + t) * kLaneBytes;
                    for (int e = 0; e < 8; ++e) {
                        const std::int64_t column = block * kMxBlockSize + 8 * t + e;
                        dst[fragment_byte_of(e)] = codes[row_a * m.k + column];
                        dst[8 + fragment_byte_of(e)] = codes[row_b * m.k + column];
                    }
                }
            }
            arrange_scales(scales, m, tile, g, row_a, row_b, out_scales);
        }
    }
}

}  // namespace

bool matrix_layout_fits(const family::ShapeKey& shape) {
    return shape.model_dim % kPairK == 0 && shape.inter_dim % kPairK == 0 &&
           shape.model_dim % kMmaTileRows == 0 && shape.inter_dim % 8 == 0;
}

MatrixWeights arrange_matrix_weights(const Problem& problem) {
    const ProblemDims d(problem.shape);
    const family::GateMode mode = problem.shape.gate_mode;
    const TileRows stage1_rows = [&](std::int64_t tile, int g, std::int64_t& a, std::int64_t& b) {
        a = gate_row(mode, d.inter, 8 * tile + g);
        b = up_row(mode, d.inter, 8 * tile + g);
    };
    const TileRows stage2_rows = [](std::int64_t tile, int g, std::int64_t& a, std::int64_t& b) {
        a = 16 * tile + 2 * g;
        b = a + 1;
    };
    const MatrixShape m1{d.gate_up_rows(), d.hidden};
    const MatrixShape m2{d.hidden, d.inter};
    MatrixWeights w;
    assign_zeroed(w.w1_fp4, problem.w1_fp4.size());
    assign_zeroed(w.w1_scale, problem.w1_scale.size());
    assign_zeroed(w.w2_fp4, problem.w2_fp4.size());
    assign_zeroed(w.w2_scale, problem.w2_scale.size());
    const std::size_t w1_codes = d.w1_bytes() / static_cast<std::size_t>(d.experts);
    const std::size_t w1_scales = d.w1_scale_bytes() / static_cast<std::size_t>(d.experts);
    const std::size_t w2_codes = d.w2_bytes() / static_cast<std::size_t>(d.experts);
    const std::size_t w2_scales = d.w2_scale_bytes() / static_cast<std::size_t>(d.experts);
    parallel_for(d.experts, [&](std::int64_t e) {
        const auto u = static_cast<std::size_t>(e);
        arrange_fp4(problem.w1_fp4.data() + u * w1_codes, problem.w1_scale.data() + u * w1_scales,
                    m1, stage1_rows, w.w1_fp4.data() + u * w1_codes,
                    w.w1_scale.data() + u * w1_scales);
        arrange_fp4(problem.w2_fp4.data() + u * w2_codes, problem.w2_scale.data() + u * w2_scales,
                    m2, stage2_rows, w.w2_fp4.data() + u * w2_codes,
                    w.w2_scale.data() + u * w2_scales);
    });
    assign_zeroed(w.shared_w1_fp8, problem.shared_w1_fp8.size());
    assign_zeroed(w.shared_w1_scale, problem.shared_w1_scale.size());
    assign_zeroed(w.shared_w2_fp8, problem.shared_w2_fp8.size());
    assign_zeroed(w.shared_w2_scale, problem.shared_w2_scale.size());
    arrange_fp8(problem.shared_w1_fp8.data(), problem.shared_w1_scale.data(), m1, stage1_rows,
                w.shared_w1_fp8.data(), w.shared_w1_scale.data());
    arrange_fp8(problem.shared_w2_fp8.data(), problem.shared_w2_scale.data(), m2, stage2_rows,
                w.shared_w2_fp8.data(), w.shared_w2_scale.data());
    return w;
}

}  // namespace fhmoe::kernels::gpu
