// gpu_candidate_phases: where the gpu worker's time per candidate goes besides its timed runs
// (issue #16: ~7 ms of host work per candidate on average, ~30 ms at 256 DSV4 tokens). For a
// seeded sample of each token count's catalogue (the tuner's own sampling), the steps the
// worker takes per candidate, each timed on the host clock one after another:
//   construct  GpuFhmoeOp: validation, workspace allocation and zeroing
//   checked    the checked run: poison the output, one eager run, download the output
//   compare    the output against the CPU reference (measure_accuracy)
//   split      one eager run with events between the stages (graph mode's stage split)
//   capture    the first graph replay: capture, instantiate, the untimed upload launch, one
//              replay
//   replay     one further graph replay (host wall; device time in its own column)
//   destroy    the op's destructor (graphs, events, workspace freed)
// Medians over the sample, milliseconds. A table for people, not a test.
//
//   gpu_candidate_phases [--tokens 1,16,256] [--sample 24] [--seed 1]

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/catalogue_sample.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "gpu/gpu_device.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using fhmoe::tuning::median;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Options {
    std::vector<std::int64_t> tokens{1, 16, 256};
    std::size_t sample = 24;
    std::uint64_t seed = 1;
};

[[noreturn]] void usage(const char* program) {
    std::fprintf(stderr, "usage: %s [--tokens 1,16,256] [--sample 24] [--seed 1]\n", program);
    std::exit(2);
}

std::vector<std::int64_t> parse_list(const std::string& text) {
    std::vector<std::int64_t> values;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        if (comma > at)
            values.push_back(std::strtoll(text.substr(at, comma - at).c_str(), nullptr, 10));
        at = comma + 1;
    }
    return values;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--tokens") {
            options.tokens = parse_list(value);
        } else if (flag == "--sample") {
            options.sample = std::strtoull(value.c_str(), nullptr, 10);
        } else if (flag == "--seed") {
            options.seed = std::strtoull(value.c_str(), nullptr, 10);
        } else {
            usage(argv[0]);
        }
    }
    if (argc % 2 == 0 || options.tokens.empty() || options.sample == 0) usage(argv[0]);
    return options;
}

struct Phases {
    std::vector<double> construct, checked, compare, split, capture, replay, replay_device, destroy;
};

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    const auto device = fhmoe::kernels::gpu::bind_gpu_device(0);
    std::printf(
        "per-candidate steps of the gpu worker on %s, DSV4 I384, %zu sampled candidates "
        "per token count (seed %llu); medians, ms\n",
        device.name.c_str(), options.sample, static_cast<unsigned long long>(options.seed));
    std::printf("%-6s %4s %9s %8s %8s %8s %8s %8s %9s %8s\n", "tokens", "ran", "construct",
                "checked", "compare", "split", "capture", "replay", "replay_us", "destroy");
    for (const std::int64_t tokens : options.tokens) {
        const auto shape = fhmoe::family::dsv4_i384_shape(tokens);
        const fhmoe::kernels::Problem problem = fhmoe::kernels::generate_problem(shape, 7);
        const fhmoe::kernels::ReferenceOutput reference =
            fhmoe::kernels::compute_reference(problem);
        const fhmoe::kernels::GpuProblem on_device(problem, 1);
        std::vector<std::uint16_t> out(problem.x_bf16.size());
        Phases p;
        for (const auto& candidate :
             fhmoe::family::sample_shape_catalogue(shape, options.sample, options.seed)) {
            auto start = Clock::now();
            std::unique_ptr<fhmoe::kernels::GpuFhmoeOp> op;
            try {
                op = std::make_unique<fhmoe::kernels::GpuFhmoeOp>(shape, candidate);
            } catch (const fhmoe::kernels::UnsupportedCandidate&) {
                continue;  // the worker reports these without running anything
            }
            p.construct.push_back(ms_since(start));
            start = Clock::now();
            op->poison_output();
            op->run(on_device, 0);
            op->download_output(out);
            p.checked.push_back(ms_since(start));
            start = Clock::now();
            (void)fhmoe::kernels::measure_accuracy(reference.out, out,
                                                   fhmoe::kernels::AccuracyTolerance{});
            p.compare.push_back(ms_since(start));
            start = Clock::now();
            fhmoe::tuning::StageSplit stages;
            op->run(on_device, 0, &stages);
            p.split.push_back(ms_since(start));
            start = Clock::now();
            (void)op->run_graph(on_device, 0);
            p.capture.push_back(ms_since(start));
            start = Clock::now();
            p.replay_device.push_back(op->run_graph(on_device, 0));
            p.replay.push_back(ms_since(start));
            start = Clock::now();
            op.reset();
            p.destroy.push_back(ms_since(start));
        }
        if (p.construct.empty()) {
            std::printf("%-6lld    0 (every sampled candidate unsupported)\n",
                        static_cast<long long>(tokens));
            continue;
        }
        std::printf("%-6lld %4zu %9.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.1f %8.3f\n",
                    static_cast<long long>(tokens), p.construct.size(), median(p.construct),
                    median(p.checked), median(p.compare), median(p.split), median(p.capture),
                    median(p.replay), median(p.replay_device), median(p.destroy));
        std::fflush(stdout);
    }
    return 0;
}
