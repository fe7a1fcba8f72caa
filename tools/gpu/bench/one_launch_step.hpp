#pragma once

// one_launch_step's kernel (one_launch_step.cu, nvcc) and its host program
// (one_launch_step.cpp): the pointers of one input set of a one-token DSV4 I384 problem in the
// matrix path's layouts, and the launch. An experiment, not an op path (docs/gpu.md).

#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/weight_pointers.hpp"

inline constexpr int kOneLaunchStepThreads = 1024;
inline constexpr int kOneLaunchStepHidden = 7168;
// h's FP32 sums, twice (ping-pong): 7 experts x (384 gate + 384 up).
inline constexpr int kOneLaunchStepHSums = 7 * 2 * 384;

struct OneLaunchStepInputs {
    const std::uint16_t* x;                       // BF16 [7168]
    const std::int32_t* topk_ids;                 // [7]: 6 routed experts, then the shared one
    const float* topk_weights;                    // [7]
    fhmoe::kernels::gpu::WeightPointers weights;  // the matrix path's layouts
};

// Dynamic shared memory a workgroup takes.
unsigned one_launch_step_shared_bytes();
// Sets the kernel's shared-memory limit; whether one workgroup fits each of `multiprocessors`
// (and there are enough for the 112 output tiles).
bool one_launch_step_fits(int multiprocessors);
// One step: one workgroup per multiprocessor. `h_sums` holds 2 x kOneLaunchStepHSums floats,
// zero before the first launch; `barrier` one counter, zero before the first launch.
void launch_one_launch_step(const OneLaunchStepInputs& inputs, float* h_sums, std::uint16_t* out,
                            unsigned* barrier, int multiprocessors, cudaStream_t stream);
