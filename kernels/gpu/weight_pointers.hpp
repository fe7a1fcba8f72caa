#pragma once

// The weights one run of the op reads, as device pointers in the backend's layouts (on NVIDIA
// the matrix path's, gpu/matrix_layout.hpp): every routed expert of one weight copy, and one
// shared expert. A header of plain types, so that device translation units that may not
// include the project's host headers (nvcc's front end fails on some) can take them too.

#include <cstdint>

namespace fhmoe::kernels::gpu {

struct WeightPointers {
    const std::uint8_t* w1_fp4;
    const std::uint8_t* w1_scale;
    const std::uint8_t* w2_fp4;
    const std::uint8_t* w2_scale;
    const std::uint8_t* shared_w1_fp8;
    const std::uint8_t* shared_w1_scale;
    const std::uint8_t* shared_w2_fp8;
    const std::uint8_t* shared_w2_scale;
};

}  // namespace fhmoe::kernels::gpu
