#pragma once

// A problem's weight matrices rearranged, on the host, into the matrix path's mma-ready
// layouts (gpu/matrix_layout.hpp), once per upload.

#include <cstdint>
#include <vector>

#include "fhmoe/kernels/problem.hpp"

namespace fhmoe::kernels::gpu {

struct MatrixWeights {
    std::vector<std::uint8_t> w1_fp4;           // [E][2I/16 tiles][H/64][32][16]
    std::vector<std::uint8_t> w1_scale;         // [E][2I/16][H/64][8][4]
    std::vector<std::uint8_t> w2_fp4;           // [E][H/16][I/64][32][16]
    std::vector<std::uint8_t> w2_scale;         // [E][H/16][I/64][8][4]
    std::vector<std::uint8_t> shared_w1_fp8;    // [2I/16][H/32][32][16]
    std::vector<std::uint8_t> shared_w1_scale;  // [2I/16][H/64][8][4]
    std::vector<std::uint8_t> shared_w2_fp8;    // [H/16][I/32][32][16]
    std::vector<std::uint8_t> shared_w2_scale;  // [H/16][I/64][8][4]
};

// Whether the matrix path can lay out this shape: K of both GEMMs (model_dim, inter_dim) a
// multiple of 64, inter_dim a multiple of 8 and model_dim of 16 (whole weight tiles).
bool matrix_layout_fits(const family::ShapeKey& shape);

MatrixWeights arrange_matrix_weights(const Problem& problem);

}  // namespace fhmoe::kernels::gpu
