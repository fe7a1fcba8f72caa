// Times a few cpu-backend candidates on small FHMoE shapes and prints one table: the whole
// op's median wall time and its mean split by stage. A table for people, not a test.
//
//   kernels_cpu_op [iterations]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/cpu_op.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "support/small_shape.hpp"

namespace {

using fhmoe::family::Candidate;
using fhmoe::family::GateMode;
using fhmoe::family::Stage2Mode;

struct BenchCandidate {
    const char* label;
    Candidate candidate;
};

std::vector<BenchCandidate> bench_candidates() {
    const auto g = GateMode::interleave;
    return {
        {"bm32 t32x64x128 w1 | t32x128x128 atomic",
         {32, {32, 64, 128, 1, 1, g, false}, {32, 128, 128, Stage2Mode::atomic, false}}},
        {"bm32 t32x64x128 w1 fp8 | t32x128x128 atomic",
         {32, {32, 64, 128, 1, 1, g, true}, {32, 128, 128, Stage2Mode::atomic, false}}},
        {"bm32 t32x64x128 w2 kw2 fp8 | t32x128x128 reduce",
         {32, {32, 64, 128, 2, 2, g, true}, {32, 128, 128, Stage2Mode::reduce, false}}},
        {"bm32 t32x128x256 w4 kw4 fp8 | t32x256x128 atomic persist",
         {32, {32, 128, 256, 4, 4, g, true}, {32, 256, 128, Stage2Mode::atomic, true}}},
        {"bm16 t16x32x64 w1 fp8 | t16x64x64 reduce persist",
         {16, {16, 32, 64, 1, 1, g, true}, {16, 64, 64, Stage2Mode::reduce, true}}},
        {"bm64 t64x128x256 w2 fp8 | t32x256x128 atomic",
         {64, {64, 128, 256, 2, 1, g, true}, {32, 256, 128, Stage2Mode::atomic, false}}},
        {"bm128 t128x128x128 w1 kw2 | t128x128x64 reduce",
         {128, {128, 128, 128, 1, 2, g, false}, {128, 128, 64, Stage2Mode::reduce, false}}},
    };
}

// The small CI shape at H=256, as the kernels tests run it.
fhmoe::family::ShapeKey shape_for(std::int64_t tokens) {
    fhmoe::family::ShapeKey shape = fhmoe::test_support::small_shape(tokens);
    shape.model_dim = 256;
    return shape;
}

}  // namespace

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
    std::printf("cpu backend, H=256 I=128 E=17 topk=5, median of %d runs (us); stage means (us)\n",
                iterations);
    std::printf("%-6s %-58s %9s %7s %7s %8s %8s %7s %6s %9s\n", "tokens", "candidate", "median",
                "sort", "quant", "stage1", "stage2", "reduce", "thr", "mismatch");
    for (std::int64_t tokens : {1, 16, 128}) {
        const auto shape = shape_for(tokens);
        const fhmoe::kernels::Problem problem = fhmoe::kernels::generate_problem(shape, 7);
        const fhmoe::kernels::ReferenceOutput reference =
            fhmoe::kernels::compute_reference(problem);
        for (const BenchCandidate& entry : bench_candidates()) {
            fhmoe::kernels::CpuFhmoeOp op(shape, entry.candidate);
            std::vector<std::uint16_t> out(problem.x_bf16.size());
            op.run(problem, out);  // warm-up, and the accuracy check
            const auto metrics = fhmoe::kernels::measure_accuracy(reference.out, out, {});
            std::vector<double> times;
            fhmoe::tuning::StageSplit sum;
            for (int i = 0; i < iterations; ++i) {
                fhmoe::tuning::StageSplit stages;
                const auto begin = std::chrono::steady_clock::now();
                op.run(problem, out, &stages);
                const auto end = std::chrono::steady_clock::now();
                times.push_back(std::chrono::duration<double, std::micro>(end - begin).count());
                sum.sort_us += stages.sort_us;
                sum.quant_us += stages.quant_us;
                sum.stage1_us += stages.stage1_us;
                sum.stage2_us += stages.stage2_us;
                sum.reduce_us += stages.reduce_us;
            }
            std::nth_element(times.begin(), times.begin() + iterations / 2, times.end());
            const double n = iterations;
            std::printf("%-6lld %-58s %9.1f %7.1f %7.1f %8.1f %8.1f %7.1f %6d %9.4f\n",
                        static_cast<long long>(tokens), entry.label, times[iterations / 2],
                        sum.sort_us / n, sum.quant_us / n, sum.stage1_us / n, sum.stage2_us / n,
                        sum.reduce_us / n, op.thread_count(), metrics.mismatch_fraction);
        }
    }
    return 0;
}
