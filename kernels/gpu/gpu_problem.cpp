// A Problem's inputs uploaded once, in `copies` identical device copies for rotation.

#include <vector>

#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_problem_impl.hpp"

namespace fhmoe::kernels {
namespace {

template <typename T>
gpu::DeviceBuffer<T> uploaded(const std::vector<T>& host) {
    gpu::DeviceBuffer<T> buffer(host.size());
    buffer.upload(host);
    return buffer;
}

}  // namespace

GpuProblem::GpuProblem(const Problem& problem, std::size_t copies)
    : impl_(std::make_unique<Impl>()) {
    validate_problem(problem);
    if (copies == 0) throw InternalError("a gpu problem needs at least one copy");
    impl_->shape = problem.shape;
    impl_->copies.reserve(copies);
    for (std::size_t i = 0; i < copies; ++i) {
        Impl::Copy copy;
        copy.x_bf16 = uploaded(problem.x_bf16);
        copy.topk_ids = uploaded(problem.topk_ids);
        copy.topk_weights = uploaded(problem.topk_weights);
        copy.w1_fp4 = uploaded(problem.w1_fp4);
        copy.w1_scale = uploaded(problem.w1_scale);
        copy.w2_fp4 = uploaded(problem.w2_fp4);
        copy.w2_scale = uploaded(problem.w2_scale);
        copy.shared_w1_fp8 = uploaded(problem.shared_w1_fp8);
        copy.shared_w1_scale = uploaded(problem.shared_w1_scale);
        copy.shared_w2_fp8 = uploaded(problem.shared_w2_fp8);
        copy.shared_w2_scale = uploaded(problem.shared_w2_scale);
        impl_->copies.push_back(std::move(copy));
    }
}

GpuProblem::~GpuProblem() = default;

const family::ShapeKey& GpuProblem::shape() const { return impl_->shape; }

std::size_t GpuProblem::copies() const { return impl_->copies.size(); }

std::size_t GpuProblem::device_bytes() const {
    std::size_t bytes = 0;
    for (const Impl::Copy& c : impl_->copies) {
        bytes += c.x_bf16.bytes() + c.topk_ids.bytes() + c.topk_weights.bytes() + c.w1_fp4.bytes() +
                 c.w1_scale.bytes() + c.w2_fp4.bytes() + c.w2_scale.bytes() +
                 c.shared_w1_fp8.bytes() + c.shared_w1_scale.bytes() + c.shared_w2_fp8.bytes() +
                 c.shared_w2_scale.bytes();
    }
    return bytes;
}

}  // namespace fhmoe::kernels
