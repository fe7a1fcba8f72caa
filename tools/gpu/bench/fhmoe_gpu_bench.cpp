// Times gpu-backend candidates on the DSV4 I384 contract and prints one table: the whole
// op's median device time (one event pair per run, after warm-up, over rotated input
// copies when the inputs fit in twice the L2 cache), its mean split by stage, the memory
// floor (the weights the routing touches, read once, at the measured copy bandwidth) and
// the accuracy against the CPU reference. The host reference is single-threaded and slow at
// large token counts: above --reference-max-tokens each candidate is checked against the
// first candidate's output instead (the same function, computed by other kernels). A table
// for people, not a test (METHOD.md).
//
//   fhmoe_gpu_bench [--tokens 1,16,256] [--iters 50] [--warmup 5] [--bandwidth-tbps 3.93]
//                   [--reference-max-tokens 16]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/bf16.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/family/name_grammar.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "gpu/gpu_device.hpp"

namespace {

using fhmoe::family::Candidate;
using fhmoe::family::GateMode;
using fhmoe::family::Stage2Mode;

struct Options {
    std::vector<std::int64_t> tokens{1, 16, 256};
    int iters = 50;
    int warmup = 5;
    double bandwidth_tbps = 3.93;  // 1 GiB device copy on the borrowed H200 (device-bundle)
    std::int64_t reference_max_tokens = 16;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--tokens") {
            o.tokens.clear();
            std::stringstream list(value);
            for (std::string item; std::getline(list, item, ',');)
                o.tokens.push_back(std::stoll(item));
        } else if (flag == "--iters") {
            o.iters = std::max(1, std::stoi(value));
        } else if (flag == "--warmup") {
            o.warmup = std::max(0, std::stoi(value));
        } else if (flag == "--bandwidth-tbps") {
            o.bandwidth_tbps = std::stod(value);
        } else if (flag == "--reference-max-tokens") {
            o.reference_max_tokens = std::stoll(value);
        }
    }
    return o;
}

// The default candidate and variations of one field or two each, so the table shows what
// each field costs on the device.
std::vector<Candidate> bench_candidates(const fhmoe::family::ShapeKey& shape) {
    const auto g = GateMode::interleave;
    std::vector<Candidate> list{fhmoe::family::default_candidate(shape)};
    const std::vector<Candidate> more{
        {32, {32, 64, 256, 1, 1, g, true}, {32, 128, 128, Stage2Mode::atomic, false}},
        {32, {32, 64, 256, 4, 1, g, true}, {32, 128, 128, Stage2Mode::atomic, false}},
        {32, {32, 64, 256, 4, 4, g, true}, {32, 128, 128, Stage2Mode::atomic, false}},
        {32, {32, 128, 256, 4, 4, g, false}, {32, 128, 128, Stage2Mode::atomic, false}},
        {32, {32, 128, 256, 4, 4, g, true}, {32, 256, 128, Stage2Mode::reduce, false}},
        {32, {32, 128, 256, 4, 4, g, true}, {32, 256, 128, Stage2Mode::atomic, true}},
        {16, {16, 32, 128, 2, 2, g, true}, {16, 64, 64, Stage2Mode::atomic, false}},
        {64, {64, 128, 128, 4, 2, g, true}, {32, 256, 128, Stage2Mode::reduce, true}},
    };
    for (const Candidate& c : more) {
        if (std::find(list.begin(), list.end(), c) == list.end()) list.push_back(c);
    }
    return list;
}

// Bytes the op must read at least once: every routed expert some token uses, the shared
// expert, the activations; plus the output written.
double floor_bytes(const fhmoe::kernels::Problem& p) {
    const auto& s = p.shape;
    const double per_expert = static_cast<double>(p.w1_fp4.size() + p.w1_scale.size() +
                                                  p.w2_fp4.size() + p.w2_scale.size()) /
                              static_cast<double>(s.expert);
    std::set<std::int32_t> used;
    for (std::int32_t id : p.topk_ids) {
        if (id != s.shared_expert_id) used.insert(id);
    }
    const double shared = static_cast<double>(p.shared_w1_fp8.size() + p.shared_w1_scale.size() +
                                              p.shared_w2_fp8.size() + p.shared_w2_scale.size());
    const double activations = static_cast<double>(p.x_bf16.size() * 2 * 2 + p.topk_ids.size() * 8);
    return static_cast<double>(used.size()) * per_expert + shared + activations;
}

std::string label(const Candidate& c) {
    return "bm" + std::to_string(c.block_m) + " " + fhmoe::family::format_stage1_name(c.stage1) +
           " | " + fhmoe::family::format_stage2_name(c.stage2);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    const auto device = fhmoe::kernels::gpu::bind_gpu_device(0);
    std::printf(
        "gpu backend on %s (%s, %d SMs, L2 %llu MiB, driver %s), DSV4 I384 "
        "(H 7168, I 384, E 385, topk 7)\n",
        device.name.c_str(), device.arch.c_str(), device.multiprocessors,
        static_cast<unsigned long long>(device.l2_bytes >> 20), device.driver_version.c_str());
    std::printf(
        "median of %d event-timed runs after %d warm-up runs; stage means; floor = bytes "
        "touched / %.2f TB/s\n",
        options.iters, options.warmup, options.bandwidth_tbps);
    std::printf("%-6s %-92s %10s %8s %8s %9s %9s %8s %9s %6s %9s %9s\n", "tokens", "candidate",
                "median_us", "sort", "quant", "stage1", "stage2", "reduce", "floor_us", "x_floor",
                "mismatch", "cos_dist");
    for (std::int64_t tokens : options.tokens) {
        const auto shape = fhmoe::family::dsv4_i384_shape(tokens);
        const auto started = std::chrono::steady_clock::now();
        const fhmoe::kernels::Problem problem = fhmoe::kernels::generate_problem(shape, 7);
        const bool with_reference = tokens <= options.reference_max_tokens;
        std::vector<float> baseline;  // the reference, or the first candidate's output
        if (with_reference) baseline = fhmoe::kernels::compute_reference(problem).out;
        const std::uint64_t span = 2 * device.l2_bytes;
        const std::size_t copies = static_cast<std::size_t>(
            std::clamp<std::uint64_t>((span + problem.bytes() - 1) / problem.bytes(), 1, 64));
        const fhmoe::kernels::GpuProblem on_device(problem, copies);
        const double setup_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const double floor_us = floor_bytes(problem) / (options.bandwidth_tbps * 1e6);
        std::fprintf(stderr, "tokens %lld: inputs %.2f GB, %zu device copies, set-up %.1f s\n",
                     static_cast<long long>(tokens), static_cast<double>(problem.bytes()) * 1e-9,
                     copies, setup_s);
        std::vector<std::uint16_t> out(problem.x_bf16.size());
        const std::vector<Candidate> candidates = bench_candidates(shape);
        for (const Candidate& candidate : candidates) {
            fhmoe::kernels::GpuFhmoeOp op(shape, candidate);
            op.poison_output();
            op.run(on_device, 0);
            op.download_output(out);
            if (baseline.empty()) {
                for (std::uint16_t bits : out)
                    baseline.push_back(fhmoe::kernels::decode_bf16(bits));
            }
            const auto metrics = fhmoe::kernels::measure_accuracy(baseline, out, {});
            for (int i = 0; i < options.warmup; ++i) {
                op.run(on_device, static_cast<std::size_t>(i) % copies);
            }
            std::vector<double> times;
            fhmoe::tuning::StageSplit sum;
            for (int i = 0; i < options.iters; ++i) {
                fhmoe::tuning::StageSplit stages;
                times.push_back(op.run(on_device, static_cast<std::size_t>(i) % copies, &stages));
                sum.sort_us += stages.sort_us;
                sum.quant_us += stages.quant_us;
                sum.stage1_us += stages.stage1_us;
                sum.stage2_us += stages.stage2_us;
                sum.reduce_us += stages.reduce_us;
            }
            const double n = options.iters;
            const double med = median(times);
            std::printf(
                "%-6lld %-92s %10.1f %8.1f %8.1f %9.1f %9.1f %8.1f %9.1f %6.1f %9.4f %9.2e\n",
                static_cast<long long>(tokens), label(candidate).c_str(), med, sum.sort_us / n,
                sum.quant_us / n, sum.stage1_us / n, sum.stage2_us / n, sum.reduce_us / n, floor_us,
                med / floor_us, metrics.mismatch_fraction, metrics.cosine_distance);
            std::fflush(stdout);
        }
    }
    return 0;
}
