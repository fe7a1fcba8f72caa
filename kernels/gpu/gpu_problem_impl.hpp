#pragma once

// GpuProblem's device buffers, for the op's translation unit.
//
// Rotation: timed runs cycle over `inputs`. Each input set has its own activations and
// routing and points at one of the weight copies. Input 0 is the problem as generated (the
// checked run uses it); every further one routes the same tokens to a relabelled set of
// routed experts (a seeded permutation), so consecutive runs read different experts' weights
// from memory, as consecutive layers of a model do, and not what the previous run left in
// the L2 cache. The shared expert, which every run reads, has a copy of its own per input set
// (a model's layers each have theirs; one copy for all sets would leave its ~8 MB in the L2
// from one run to the next at decode sizes): the first set on a weight copy reads that copy's
// shared expert, every further set a copy of it. Small shapes, whose every weight fits in the
// cache, also get whole weight copies.
//
// On NVIDIA the weight buffers hold the matrix path's mma-ready layouts
// (gpu/matrix_weights.hpp); on AMD the problem's own layouts for the scalar kernels.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/weight_pointers.hpp"

namespace fhmoe::kernels {

struct GpuWeights::Impl {
    struct Copy {
        gpu::DeviceBuffer<std::uint8_t> w1_fp4;
        gpu::DeviceBuffer<std::uint8_t> w1_scale;
        gpu::DeviceBuffer<std::uint8_t> w2_fp4;
        gpu::DeviceBuffer<std::uint8_t> w2_scale;
        gpu::DeviceBuffer<std::uint8_t> shared_w1_fp8;
        gpu::DeviceBuffer<std::uint8_t> shared_w1_scale;
        gpu::DeviceBuffer<std::uint8_t> shared_w2_fp8;
        gpu::DeviceBuffer<std::uint8_t> shared_w2_scale;
    };
    family::ShapeKey shape;  // the shape they were uploaded for (any token count shares them)
    std::uint64_t seed = 0;
    std::vector<Copy> copies;
};

struct GpuProblem::Impl {
    // The shared expert's four tensors (an input set's own copy).
    struct SharedExpert {
        gpu::DeviceBuffer<std::uint8_t> w1_fp8;
        gpu::DeviceBuffer<std::uint8_t> w1_scale;
        gpu::DeviceBuffer<std::uint8_t> w2_fp8;
        gpu::DeviceBuffer<std::uint8_t> w2_scale;
    };
    // The weights one run reads: the routed experts of its weight copy, its set's shared expert.
    using Weights = gpu::WeightPointers;
    struct Inputs {
        gpu::DeviceBuffer<std::uint16_t> x_bf16;
        gpu::DeviceBuffer<std::int32_t> topk_ids;
        gpu::DeviceBuffer<float> topk_weights;
        std::size_t weights = 0;  // index into weights->impl().copies
        // The set's own copy of the shared expert; none for the first set on a weight copy,
        // which reads that copy's.
        std::optional<SharedExpert> shared;
        // The most slots the routing gives one expert (the shared expert: one per token): the
        // most real rows of a sorted block, which picks the kernel builds that take one token
        // group per tile (gpu/matrix_args.hpp, matrix_tiles_are_one_token_group).
        std::int64_t most_slots_per_expert = 0;
    };
    family::ShapeKey shape;
    std::shared_ptr<const GpuWeights> weights;
    std::vector<Inputs> inputs;

    Weights weights_of(const Inputs& in) const {
        const GpuWeights::Impl::Copy& routed = weights->impl().copies[in.weights];
        Weights w{routed.w1_fp4.data(),        routed.w1_scale.data(),
                  routed.w2_fp4.data(),        routed.w2_scale.data(),
                  routed.shared_w1_fp8.data(), routed.shared_w1_scale.data(),
                  routed.shared_w2_fp8.data(), routed.shared_w2_scale.data()};
        if (in.shared) {
            w.shared_w1_fp8 = in.shared->w1_fp8.data();
            w.shared_w1_scale = in.shared->w1_scale.data();
            w.shared_w2_fp8 = in.shared->w2_fp8.data();
            w.shared_w2_scale = in.shared->w2_scale.data();
        }
        return w;
    }
};

}  // namespace fhmoe::kernels
