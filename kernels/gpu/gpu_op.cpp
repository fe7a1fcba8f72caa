// The whole FHMoE op on one stream, as serving runs it, on the path this build's vendor has:
// the matrix (tensor-core) kernels on NVIDIA (gpu/matrix_op_path.hpp), the scalar kernels on
// AMD (gpu/scalar_op_path.hpp). Device events between the stages give the per-stage split;
// the first and the last give the op's time. A run can also be captured once into a device
// graph and replayed, as decode serving replays its graphs.

#include <array>
#include <map>
#include <string>

#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_problem_impl.hpp"
#include "gpu/op_events.hpp"
#include "gpu/portability.hpp"
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
#include "gpu/matrix_op_path.hpp"
#else
#include "gpu/scalar_op_path.hpp"
#endif

namespace fhmoe::kernels {
namespace {

#if defined(FHMOE_GPU_VENDOR_NVIDIA)
using OpPath = gpu::MatrixOpPath;
#else
using OpPath = gpu::ScalarOpPath;
#endif

float elapsed_ms(const gpu::DeviceEvent& from, const gpu::DeviceEvent& to) {
    float ms = 0.0f;
    FHMOE_GPU_CHECK(hipEventElapsedTime(&ms, from.get(), to.get()));
    return ms;
}

const family::ShapeKey& checked(const family::ShapeKey& shape, const family::Candidate& candidate) {
    validate_shape(shape);
    check_gpu_candidate(shape, candidate);
    return shape;
}

// One instantiated graph of the op on one input set.
class CapturedRun {
public:
    CapturedRun() = default;
    CapturedRun(const CapturedRun&) = delete;
    CapturedRun& operator=(const CapturedRun&) = delete;
    ~CapturedRun() {
        if (exec_ != nullptr) static_cast<void>(hipGraphExecDestroy(exec_));
        if (graph_ != nullptr) static_cast<void>(hipGraphDestroy(graph_));
    }
    hipGraph_t* graph() { return &graph_; }
    hipGraphExec_t* exec() { return &exec_; }
    hipGraphExec_t get() const { return exec_; }

private:
    hipGraph_t graph_ = nullptr;
    hipGraphExec_t exec_ = nullptr;
};

}  // namespace

struct GpuFhmoeOp::Impl {
    Impl(const family::ShapeKey& shape_key, const family::Candidate& chosen)
        : shape(shape_key), path(shape_key, chosen) {}

    void enqueue(const GpuProblem::Impl& problem, std::size_t copy, const gpu::OpEvents* marks) {
        const GpuProblem::Impl::Inputs& in = problem.inputs[copy];
        path.enqueue(in, problem.weights_of(in), stream.get(), marks);
    }

    double wait_and_time(tuning::StageSplit* stages) const {
        FHMOE_GPU_CHECK(hipEventSynchronize(events[gpu::kOpEvents - 1].get()));
        if (stages != nullptr) {
            stages->sort_us = 1e3 * elapsed_ms(events[0], events[1]);
            stages->quant_us =
                1e3 * (elapsed_ms(events[1], events[2]) + elapsed_ms(events[3], events[4]));
            stages->stage1_us = 1e3 * elapsed_ms(events[2], events[3]);
            stages->stage2_us = 1e3 * elapsed_ms(events[4], events[5]);
            stages->reduce_us = 1e3 * elapsed_ms(events[5], events[6]);
        }
        return 1e3 * elapsed_ms(events[0], events[gpu::kOpEvents - 1]);
    }

    // kChain: the graph holding the op once per input set (run_graph_chain).
    static constexpr std::size_t kChain = static_cast<std::size_t>(-1);

    const CapturedRun& captured(const GpuProblem::Impl& problem, std::size_t copy) {
        auto found = graphs.find(copy);
        if (found != graphs.end()) return *found->second;
        auto run = std::make_unique<CapturedRun>();
        FHMOE_GPU_CHECK(hipStreamBeginCapture(stream.get(), hipStreamCaptureModeThreadLocal));
        if (copy == kChain) {
            // Input set 0 last, so that the output can be checked as run_graph's of set 0.
            const std::size_t sets = problem.inputs.size();
            for (std::size_t i = 1; i <= sets; ++i) enqueue(problem, i % sets, nullptr);
        } else {
            enqueue(problem, copy, nullptr);
        }
        FHMOE_GPU_CHECK(hipStreamEndCapture(stream.get(), run->graph()));
        FHMOE_GPU_CHECK(gpu::instantiate_graph(run->exec(), *run->graph()));
        // The first launch of an instantiated graph also uploads it to the device: launched
        // once here, untimed, so that no timed replay (a screen's few runs rotate over input
        // sets its warm-up never reached) pays for the upload.
        FHMOE_GPU_CHECK(hipGraphLaunch(run->get(), stream.get()));
        FHMOE_GPU_CHECK(hipStreamSynchronize(stream.get()));
        return *graphs.emplace(copy, std::move(run)).first->second;
    }

    family::ShapeKey shape;
    OpPath path;
    gpu::DeviceStream stream;
    gpu::OpEvents events;
    std::map<std::size_t, std::unique_ptr<CapturedRun>> graphs;
};

GpuFhmoeOp::GpuFhmoeOp(const family::ShapeKey& shape, const family::Candidate& candidate)
    : impl_(std::make_unique<Impl>(checked(shape, candidate), candidate)) {}

GpuFhmoeOp::~GpuFhmoeOp() = default;

namespace {

void check_problem(const family::ShapeKey& op_shape, const GpuProblem& problem, std::size_t copy) {
    if (problem.shape() != op_shape) {
        throw Error("gpu op built for shape " + family::shape_key_string(op_shape) +
                    " was given a problem of shape " + family::shape_key_string(problem.shape()));
    }
    if (copy >= problem.copies()) {
        throw InternalError("gpu problem copy " + std::to_string(copy) + " of " +
                            std::to_string(problem.copies()));
    }
}

}  // namespace

double GpuFhmoeOp::run(const GpuProblem& problem, std::size_t copy, tuning::StageSplit* stages) {
    check_problem(impl_->shape, problem, copy);
    impl_->enqueue(problem.impl(), copy, &impl_->events);
    return impl_->wait_and_time(stages);
}

namespace {

// One replay of `run` between an event pair; its device time in microseconds.
double timed_replay(const CapturedRun& run, hipStream_t s, const gpu::OpEvents& events) {
    FHMOE_GPU_CHECK(hipEventRecord(events[0].get(), s));
    FHMOE_GPU_CHECK(hipGraphLaunch(run.get(), s));
    FHMOE_GPU_CHECK(hipEventRecord(events[gpu::kOpEvents - 1].get(), s));
    FHMOE_GPU_CHECK(hipEventSynchronize(events[gpu::kOpEvents - 1].get()));
    return 1e3 * elapsed_ms(events[0], events[gpu::kOpEvents - 1]);
}

}  // namespace

double GpuFhmoeOp::run_graph(const GpuProblem& problem, std::size_t copy) {
    check_problem(impl_->shape, problem, copy);
    return timed_replay(impl_->captured(problem.impl(), copy), impl_->stream.get(), impl_->events);
}

double GpuFhmoeOp::run_graph_chain(const GpuProblem& problem) {
    check_problem(impl_->shape, problem, 0);
    const CapturedRun& run = impl_->captured(problem.impl(), Impl::kChain);
    return timed_replay(run, impl_->stream.get(), impl_->events) /
           static_cast<double>(problem.copies());
}

void GpuFhmoeOp::poison_output() {
    FHMOE_GPU_CHECK(
        hipMemsetAsync(impl_->path.out.data(), 0xFF, impl_->path.out.bytes(), impl_->stream.get()));
    FHMOE_GPU_CHECK(hipStreamSynchronize(impl_->stream.get()));
}

void GpuFhmoeOp::download_output(std::span<std::uint16_t> out_bf16) const {
    if (out_bf16.size() != impl_->path.out.size()) {
        throw Error("gpu op output has " + std::to_string(impl_->path.out.size()) +
                    " elements, the host buffer " + std::to_string(out_bf16.size()));
    }
    FHMOE_GPU_CHECK(hipStreamSynchronize(impl_->stream.get()));
    FHMOE_GPU_CHECK(hipMemcpy(out_bf16.data(), impl_->path.out.data(), impl_->path.out.bytes(),
                              hipMemcpyDeviceToHost));
}

std::size_t GpuFhmoeOp::workspace_bytes() const { return impl_->path.workspace_bytes(); }

}  // namespace fhmoe::kernels
