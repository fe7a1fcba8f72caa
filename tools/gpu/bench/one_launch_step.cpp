// one_launch_step's host program: a one-token DSV4 I384 problem uploaded by GpuProblem (the
// matrix path's layouts, its input sets rotated), the one-launch kernel (one_launch_step.cu)
// checked against the CPU reference after runs on every other set, then timed under graph
// replay beside the op's default candidate in the same process. An experiment for issue #11's
// one-token clause (docs/gpu.md, "Next at one token"); a table for people, never a test.
// Usage: one_launch_step [--iters 50]

#include "one_launch_step.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/gpu_problem_impl.hpp"

namespace {

using fhmoe::tuning::median;

bool ok(cudaError_t error, const char* what) {
    if (error == cudaSuccess) return true;
    std::fprintf(stderr, "one_launch_step: %s: %s\n", what, cudaGetErrorString(error));
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    int iters = 50;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--iters" && i + 1 < argc) {
            iters = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: one_launch_step [--iters N]\n");
            return 2;
        }
    }
    // GpuProblem and the op run on the bound device.
    const auto device = fhmoe::kernels::gpu::bind_gpu_device(0);
    const int multiprocessors = device.multiprocessors;
    if (!one_launch_step_fits(multiprocessors)) {
        std::fprintf(stderr,
                     "one_launch_step: needs one %d-thread workgroup with %u bytes of "
                     "shared memory on each of >= 112 multiprocessors\n",
                     kOneLaunchStepThreads, one_launch_step_shared_bytes());
        return 1;
    }
    const auto shape = fhmoe::family::dsv4_i384_shape(1);
    const fhmoe::kernels::Problem problem = fhmoe::kernels::generate_problem(shape, 7);
    const std::vector<float> reference = fhmoe::kernels::compute_reference(problem).out;
    const fhmoe::kernels::GpuProblem on_device(problem, 1);
    const auto& impl = on_device.impl();
    std::vector<OneLaunchStepInputs> sets;
    for (const auto& input : impl.inputs) {
        sets.push_back({input.x_bf16.data(), input.topk_ids.data(), input.topk_weights.data(),
                        impl.weights_of(input)});
    }
    float* h_sums = nullptr;
    std::uint16_t* out = nullptr;
    unsigned* barrier = nullptr;
    cudaStream_t stream = nullptr;
    if (!ok(cudaMalloc(&h_sums, 2 * kOneLaunchStepHSums * sizeof(float)), "h sums") ||
        !ok(cudaMemset(h_sums, 0, 2 * kOneLaunchStepHSums * sizeof(float)), "h sums") ||
        !ok(cudaMalloc(&out, kOneLaunchStepHidden * sizeof(std::uint16_t)), "output") ||
        !ok(cudaMalloc(&barrier, sizeof(unsigned)), "barrier") ||
        !ok(cudaMemset(barrier, 0, sizeof(unsigned)), "barrier") ||
        !ok(cudaStreamCreate(&stream), "stream")) {
        return 1;
    }
    auto launch = [&](const OneLaunchStepInputs& set) {
        launch_one_launch_step(set, h_sums, out, barrier, multiprocessors, stream);
    };
    // The check: set 0 after a run on every other set.
    for (std::size_t s = 1; s <= sets.size(); ++s) launch(sets[s % sets.size()]);
    std::vector<std::uint16_t> result(kOneLaunchStepHidden);
    if (!ok(cudaStreamSynchronize(stream), "check run") ||
        !ok(cudaMemcpy(result.data(), out, kOneLaunchStepHidden * sizeof(std::uint16_t),
                       cudaMemcpyDeviceToHost),
            "download")) {
        return 1;
    }
    const auto metrics = fhmoe::kernels::measure_accuracy(reference, result, {});

    // Graph replay, one graph per input set, rotated (as the op's run_graph).
    std::vector<cudaGraphExec_t> graphs(sets.size());
    for (std::size_t s = 0; s < sets.size(); ++s) {
        cudaGraph_t graph = nullptr;
        if (!ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "capture")) return 1;
        launch(sets[s]);
        if (!ok(cudaStreamEndCapture(stream, &graph), "capture") ||
            !ok(cudaGraphInstantiate(&graphs[s], graph, 0), "instantiate") ||
            !ok(cudaGraphDestroy(graph), "graph")) {
            return 1;
        }
    }
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
    if (!ok(cudaEventCreate(&start), "event") || !ok(cudaEventCreate(&stop), "event")) return 1;
    std::vector<double> graph_us;
    for (int run = 0; run < iters + 5; ++run) {
        float ms = 0.0f;
        if (!ok(cudaEventRecord(start, stream), "record") ||
            !ok(cudaGraphLaunch(graphs[static_cast<std::size_t>(run) % graphs.size()], stream),
                "replay") ||
            !ok(cudaEventRecord(stop, stream), "record") ||
            !ok(cudaEventSynchronize(stop), "sync") ||
            !ok(cudaEventElapsedTime(&ms, start, stop), "elapsed")) {
            return 1;
        }
        if (run >= 5) graph_us.push_back(ms * 1000.0);
    }
    // The op's default candidate on the same problem, the same way.
    fhmoe::kernels::GpuFhmoeOp op(shape, fhmoe::family::default_candidate(shape));
    std::vector<double> op_us;
    for (int run = 0; run < iters + 5; ++run) {
        const double us = op.run_graph(on_device, static_cast<std::size_t>(run) % sets.size());
        if (run >= 5) op_us.push_back(us);
    }
    std::printf(
        "%s: one DSV4 I384 token, %zu input sets rotated, %d graph replays each (median "
        "us)\n",
        device.name.c_str(), sets.size(), iters);
    std::printf("%-34s %9s %9s %10s\n", "", "graph_us", "mismatch", "cos_dist");
    std::printf("%-34s %9.1f %9.4f %10.2e\n", "one launch (this program)", median(graph_us),
                metrics.mismatch_fraction, metrics.cosine_distance);
    std::printf("%-34s %9.1f %9s %10s\n", "the op's default candidate", median(op_us), "-", "-");
    for (cudaGraphExec_t graph : graphs) cudaGraphExecDestroy(graph);
    return metrics.mismatch_fraction == 0 ? 0 : 1;
}
