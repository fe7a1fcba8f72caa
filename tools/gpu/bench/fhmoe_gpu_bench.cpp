// Times gpu-backend candidates on the DSV4 I384 contract and prints one table per token count:
// each candidate's median device time launched eagerly (one event pair around the op's
// launches), replayed as a device graph (one event pair around the graph launch) and as one op
// of a chain in a graph (a graph of the op once per input set, its replay's time divided by the
// ops: what an op costs inside a model's decode graph, without a graph launch of its own), its mean
// split by stage (eager), and its accuracy against the CPU reference; then a summary with
// the fastest candidate per token beside the MXFP4 memory floor (the weights the routing
// touches, read once, at the copy bandwidth measured in the same process). Timed runs rotate
// over input sets whose routings touch different experts, so no run finds its weights in the
// L2 cache. A table for people, not a test (METHOD.md).
//
//   fhmoe_gpu_bench [--tokens 1,4,16,64,256,1024,2048] [--iters 30] [--warmup 5]
//                   [--reference-max-tokens 4096] [--candidates all|default|LABEL,...]
//                   [--list] [--version] [--help]
// `all` is the bench's list (below); LABELs may name any candidate of the token's catalogue.
// --list prints the candidates the flags select, per token, and exits without a GPU.

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
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/family/name_grammar.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/gpu_op.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "fhmoe/version.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/portability.hpp"

namespace {

using fhmoe::family::Candidate;
using fhmoe::family::GateMode;
using fhmoe::family::Stage2Mode;
using fhmoe::tuning::median;

struct Options {
    std::vector<std::int64_t> tokens{1, 4, 16, 64, 256, 1024, 2048};
    int iters = 30;
    int warmup = 5;
    std::int64_t reference_max_tokens = 4096;
    std::string candidates = "all";  // all, default (profiling) or one candidate's label
    bool list = false;               // print the selected candidates and exit
};

[[noreturn]] void usage(int code) {
    std::fprintf(code == 0 ? stdout : stderr,
                 "usage: fhmoe_gpu_bench [--tokens 1,4,16,64,256,1024,2048] [--iters 30] "
                 "[--warmup 5] [--reference-max-tokens 4096] [--candidates all|default|LABEL,...]\n"
                 "                       [--list] [--version] [--help]\n"
                 "Times the gpu backend's candidates on DSV4 I384 (eager and graph replay) and "
                 "prints the fastest per token beside the MXFP4 memory floor.\n"
                 "  --candidates  all: the bench's list; default: the default config; or labels "
                 "bm<block_m>|<stage1>|<stage2>\n"
                 "                of any candidate of the token's catalogue (fhmoe_catalogue "
                 "--list --token N)\n"
                 "  --list        print the candidates the flags select per token, and exit (no "
                 "GPU needed)\n");
    std::exit(code);
}

Options parse(int argc, char** argv) {
    Options o;
    const std::set<std::string> valued = {"--tokens", "--iters", "--warmup",
                                          "--reference-max-tokens", "--candidates"};
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") usage(0);
        if (flag == "--version") {
            std::printf("%s\n", fhmoe::version_line("fhmoe_gpu_bench").c_str());
            std::exit(0);
        }
        if (flag == "--list") {
            o.list = true;
            continue;
        }
        if (valued.count(flag) == 0) {
            std::fprintf(stderr, "fhmoe_gpu_bench: unknown flag %s\n", flag.c_str());
            usage(2);
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "fhmoe_gpu_bench: %s needs a value\n", flag.c_str());
            usage(2);
        }
        const std::string value = argv[++i];
        try {
            if (flag == "--tokens") {
                o.tokens.clear();
                std::stringstream list(value);
                for (std::string item; std::getline(list, item, ',');)
                    o.tokens.push_back(std::stoll(item));
            } else if (flag == "--iters") {
                o.iters = std::max(1, std::stoi(value));
            } else if (flag == "--warmup") {
                o.warmup = std::max(0, std::stoi(value));
            } else if (flag == "--reference-max-tokens") {
                o.reference_max_tokens = std::stoll(value);
            } else if (flag == "--candidates") {
                o.candidates = value;
            }
        } catch (const std::exception&) {
            std::fprintf(stderr, "fhmoe_gpu_bench: bad value '%s' for %s\n", value.c_str(),
                         flag.c_str());
            usage(2);
        }
    }
    return o;
}

// The default candidate and variations of the fields that matter at this token count, kept
// when the catalogue offers them: block_m, stage1 width, waves, K warps and K split, stage2
// width and mode.
std::vector<Candidate> bench_candidates(const fhmoe::family::ShapeKey& shape) {
    const GateMode g = shape.gate_mode;
    std::vector<Candidate> list{fhmoe::family::default_candidate(shape)};
    for (int bm : fhmoe::family::offered_block_ms(shape)) {
        for (int s1n : {32, 64, 128}) {
            // 32-column stage1 tiles: one weight tile per warp of four at most (no second
            // round, whose ring fills again), for the small token tiles.
            if (s1n == 32 && bm >= 64) continue;
            for (int waves : {1, 2, 4}) {
                for (int kw : {1, 2, 4}) {
                    if (waves * kw < 2) continue;
                    // Large token tiles stage activations per K step: short steps too.
                    const std::vector<int> steps =
                        bm >= 64 ? std::vector<int>{64, 128, 256} : std::vector<int>{128, 256};
                    for (int s1k : steps) {
                        const Candidate c{bm,
                                          {bm, s1n, s1k, waves, kw, g, true},
                                          {bm, 128, 128, Stage2Mode::atomic, false}};
                        list.push_back(c);
                        // Small tiles: also with stage2's 256-, 512- (four waves, the
                        // default's: DSV4 4-8 tokens) and 1024-wide tiles, whose warps stream
                        // two, four or eight weight tiles each (gpu/matrix_gemm.hpp,
                        // accumulate_tiles).
                        if (bm < 64 && s1k == 128) {
                            for (int s2n : {256, 512, 1024}) {
                                if (s2n == 512 && waves != 4) continue;
                                list.push_back({bm,
                                                {bm, s1n, s1k, waves, kw, g, true},
                                                {bm, s2n, 128, Stage2Mode::atomic, false}});
                                // Fixed K splits (offered up to 64 tokens), four warps, one
                                // or two K warps, stage2's 256 and 1024 columns.
                                if (waves != 4 || kw > 2 || s2n == 512) continue;
                                for (int ks : {2, 4, 8}) {
                                    list.push_back({bm,
                                                    {bm, s1n, s1k, waves, kw, g, true, ks},
                                                    {bm, s2n, 128, Stage2Mode::atomic, false}});
                                }
                            }
                        }
                    }
                }
            }
        }
        for (int s2n : {64, 128, 256, 512, 1024}) {
            for (int s2m : {bm / 2, bm}) {
                for (bool persist : {false, true}) {
                    list.push_back({bm,
                                    {bm, 64, 256, 4, 1, g, true},
                                    {s2m, s2n, 128, Stage2Mode::atomic, persist}});
                }
            }
        }
        list.push_back(
            {bm, {bm, 64, 256, 4, 1, g, false}, {bm, 128, 128, Stage2Mode::reduce, false}});
        list.push_back(
            {bm, {bm, 64, 256, 4, 1, g, true}, {bm, 128, 64, Stage2Mode::atomic, false}});
    }
    std::vector<Candidate> kept;
    for (const Candidate& c : list) {
        if (!fhmoe::family::is_in_catalogue(shape, c)) continue;
        if (std::find(kept.begin(), kept.end(), c) == kept.end()) kept.push_back(c);
    }
    return kept;
}

// Bytes the op must read at least once: every routed expert some token uses (MXFP4 codes and
// scales), the shared expert (FP8), the activations (bf16); plus the output written (bf16).
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
    return "bm" + std::to_string(c.block_m) + "|" + fhmoe::family::format_stage1_name(c.stage1) +
           "|" + fhmoe::family::format_stage2_name(c.stage2);
}

// Device copy bandwidth, bytes read plus written over time: the median of 10 copies of 1 GiB.
double copy_bandwidth_tbps() {
    const std::size_t bytes = std::size_t{1} << 30;
    fhmoe::kernels::gpu::DeviceBuffer<std::uint8_t> from(bytes);
    fhmoe::kernels::gpu::DeviceBuffer<std::uint8_t> to(bytes);
    FHMOE_GPU_CHECK(hipMemset(from.data(), 1, bytes));
    fhmoe::kernels::gpu::DeviceEvent start;
    fhmoe::kernels::gpu::DeviceEvent stop;
    std::vector<double> tbps;
    for (int i = 0; i < 12; ++i) {
        FHMOE_GPU_CHECK(hipEventRecord(start.get(), nullptr));
        FHMOE_GPU_CHECK(
            hipMemcpyAsync(to.data(), from.data(), bytes, hipMemcpyDeviceToDevice, nullptr));
        FHMOE_GPU_CHECK(hipEventRecord(stop.get(), nullptr));
        FHMOE_GPU_CHECK(hipEventSynchronize(stop.get()));
        float ms = 0.0f;
        FHMOE_GPU_CHECK(hipEventElapsedTime(&ms, start.get(), stop.get()));
        if (i >= 2) tbps.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e12);
    }
    return median(tbps);
}

struct Row {
    std::int64_t tokens = 0;
    std::string candidate;
    double eager_us = 0;
    double graph_us = 0;
    double chain_us = 0;  // per op, in a graph of the op once per input set
    double floor_us = 0;
    double mismatch = 0;
    bool is_default = false;
};

}  // namespace

// The candidates the flags select for one token count: "all" and "default" pick from the
// bench's list; named labels from the whole catalogue.
std::vector<Candidate> selected_candidates(const Options& options,
                                           const fhmoe::family::ShapeKey& shape) {
    const Candidate default_candidate = fhmoe::family::default_candidate(shape);
    const bool named = options.candidates != "all" && options.candidates != "default";
    std::vector<Candidate> candidates;
    for (const Candidate& c :
         named ? fhmoe::family::build_catalogue(shape) : bench_candidates(shape)) {
        if (options.candidates == "all" ||
            (options.candidates == "default" && c == default_candidate) ||
            ("," + options.candidates + ",").find("," + label(c) + ",") != std::string::npos) {
            candidates.push_back(c);
        }
    }
    return candidates;
}

// --list: what a run with these flags would time, without touching a GPU.
int list_candidates(const Options& options) {
    for (std::int64_t tokens : options.tokens) {
        const auto shape = fhmoe::family::dsv4_i384_shape(tokens);
        const Candidate default_candidate = fhmoe::family::default_candidate(shape);
        const std::vector<Candidate> candidates = selected_candidates(options, shape);
        std::printf("tokens %lld: %zu candidates\n", static_cast<long long>(tokens),
                    candidates.size());
        for (const Candidate& c : candidates) {
            std::printf("  %s%s\n", label(c).c_str(), c == default_candidate ? "  (default)" : "");
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    if (options.list) return list_candidates(options);
    const auto device = fhmoe::kernels::gpu::bind_gpu_device(0);
    const double bandwidth = copy_bandwidth_tbps();
    std::printf(
        "gpu backend on %s (%s, %d SMs, L2 %llu MiB, driver %s), DSV4 I384 "
        "(H 7168, I 384, E 385, topk 7); copy bandwidth %.2f TB/s\n",
        device.name.c_str(), device.arch.c_str(), device.multiprocessors,
        static_cast<unsigned long long>(device.l2_bytes >> 20), device.driver_version.c_str(),
        bandwidth);
    std::printf(
        "medians of %d event-timed runs after %d warm-up runs, eager and graph replay; chain: "
        "per op in a graph of the op once per input set; stage means (eager); floor = bytes "
        "touched / copy bandwidth\n",
        options.iters, options.warmup);
    std::printf("%-6s %-96s %9s %9s %9s %8s %8s %8s %8s %9s %6s %9s %9s\n", "tokens", "candidate",
                "eager_us", "graph_us", "chain_us", "route", "stage1", "quant", "stage2",
                "floor_us", "x_fl", "mismatch", "cos_dist");
    std::vector<Row> best;
    std::vector<Row> defaults;
    for (std::int64_t tokens : options.tokens) {
        const auto shape = fhmoe::family::dsv4_i384_shape(tokens);
        // The set-up's phases, timed: a shape load is what the tuner's worker pays too.
        auto seconds_since = [](std::chrono::steady_clock::time_point from) {
            return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
        };
        const auto started = std::chrono::steady_clock::now();
        const fhmoe::kernels::Problem problem = fhmoe::kernels::generate_problem(shape, 7);
        const double generate_s = seconds_since(started);
        const bool with_reference = tokens <= options.reference_max_tokens;
        std::vector<float> baseline;  // the reference, or the first candidate's output
        const auto reference_started = std::chrono::steady_clock::now();
        if (with_reference) baseline = fhmoe::kernels::compute_reference(problem).out;
        const double reference_s = seconds_since(reference_started);
        const auto device_started = std::chrono::steady_clock::now();
        const fhmoe::kernels::GpuProblem on_device(problem, 1);
        const double device_s = seconds_since(device_started);
        const std::size_t sets = on_device.copies();
        const double setup_s = seconds_since(started);
        const double floor_us = floor_bytes(problem) / (bandwidth * 1e6);
        std::fprintf(stderr,
                     "tokens %lld: inputs %.2f GB, %zu input sets, set-up %.1f s (generate %.1f, "
                     "reference %.1f, device upload and layouts %.1f)\n",
                     static_cast<long long>(tokens), static_cast<double>(problem.bytes()) * 1e-9,
                     sets, setup_s, generate_s, reference_s, device_s);
        std::vector<std::uint16_t> out(problem.x_bf16.size());
        const Candidate default_candidate = fhmoe::family::default_candidate(shape);
        Row best_here;
        const std::vector<Candidate> candidates = selected_candidates(options, shape);
        for (const Candidate& candidate : candidates) {
            std::unique_ptr<fhmoe::kernels::GpuFhmoeOp> op;
            try {
                op = std::make_unique<fhmoe::kernels::GpuFhmoeOp>(shape, candidate);
            } catch (const fhmoe::kernels::UnsupportedCandidate& error) {
                std::printf("%-6lld %-96s unsupported: %s\n", static_cast<long long>(tokens),
                            label(candidate).c_str(), error.what());
                continue;
            }
            op->poison_output();
            op->run(on_device, 0);
            op->download_output(out);
            if (baseline.empty()) {
                for (std::uint16_t bits : out)
                    baseline.push_back(fhmoe::kernels::decode_bf16(bits));
            }
            const auto metrics = fhmoe::kernels::measure_accuracy(baseline, out, {});
            // The graph path's output is checked too: a replay must compute the same op.
            op->poison_output();
            op->run_graph(on_device, 0);
            op->download_output(out);
            const auto graph_metrics = fhmoe::kernels::measure_accuracy(baseline, out, {});
            // And the chain's: it ends with input set 0, after runs on every other set.
            op->poison_output();
            op->run_graph_chain(on_device);
            op->download_output(out);
            const auto chain_metrics = fhmoe::kernels::measure_accuracy(baseline, out, {});
            const double mismatch =
                std::max({metrics.mismatch_fraction, graph_metrics.mismatch_fraction,
                          chain_metrics.mismatch_fraction});
            for (int i = 0; i < options.warmup; ++i) {
                op->run(on_device, static_cast<std::size_t>(i) % sets);
                op->run_graph(on_device, static_cast<std::size_t>(i) % sets);
            }
            std::vector<double> eager;
            std::vector<double> graph;
            fhmoe::tuning::StageSplit sum;
            for (int i = 0; i < options.iters; ++i) {
                fhmoe::tuning::StageSplit stages;
                eager.push_back(op->run(on_device, static_cast<std::size_t>(i) % sets, &stages));
                sum.sort_us += stages.sort_us;
                sum.quant_us += stages.quant_us;
                sum.stage1_us += stages.stage1_us;
                sum.stage2_us += stages.stage2_us + stages.reduce_us;
            }
            for (int i = 0; i < options.iters; ++i) {
                graph.push_back(op->run_graph(on_device, static_cast<std::size_t>(i) % sets));
            }
            // As many ops timed in chains as graph replays: iters / sets chain replays.
            std::vector<double> chain;
            const auto chain_replays = std::max<std::size_t>(
                1, (static_cast<std::size_t>(options.iters) + sets - 1) / sets);
            for (std::size_t i = 0; i < chain_replays; ++i)
                chain.push_back(op->run_graph_chain(on_device));
            const double n = options.iters;
            Row row{tokens,        label(candidate), median(eager), median(graph),
                    median(chain), floor_us,         mismatch,      candidate == default_candidate};
            std::printf(
                "%-6lld %-96s %9.1f %9.1f %9.1f %8.1f %8.1f %8.1f %8.1f %9.1f %6.2f %9.4f "
                "%9.2e\n",
                static_cast<long long>(tokens), row.candidate.c_str(), row.eager_us, row.graph_us,
                row.chain_us, sum.sort_us / n, sum.stage1_us / n, sum.quant_us / n,
                sum.stage2_us / n, floor_us, row.graph_us / floor_us, mismatch,
                std::max({metrics.cosine_distance, graph_metrics.cosine_distance,
                          chain_metrics.cosine_distance}));
            std::fflush(stdout);
            if (row.is_default) defaults.push_back(row);
            if (mismatch == 0 &&
                (best_here.candidate.empty() || row.graph_us < best_here.graph_us)) {
                best_here = row;
            }
        }
        if (!best_here.candidate.empty()) best.push_back(best_here);
    }
    std::printf("\nfastest candidate per token (graph replay; mismatch 0 against %s)\n",
                options.reference_max_tokens >= 2048 ? "the CPU reference"
                                                     : "the reference or the first candidate");
    std::printf("%-6s %9s %9s %9s %9s %7s %7s %9s %9s  %s\n", "tokens", "floor_us", "graph_us",
                "chain_us", "eager_us", "x_floor", "x_chain", "dflt_grph", "dflt_eagr",
                "candidate");
    for (const Row& row : best) {
        double default_graph = 0;
        double default_eager = 0;
        for (const Row& d : defaults) {
            if (d.tokens == row.tokens) {
                default_graph = d.graph_us;
                default_eager = d.eager_us;
            }
        }
        std::printf("%-6lld %9.1f %9.1f %9.1f %9.1f %7.2f %7.2f %9.1f %9.1f  %s\n",
                    static_cast<long long>(row.tokens), row.floor_us, row.graph_us, row.chain_us,
                    row.eager_us, row.graph_us / row.floor_us, row.chain_us / row.floor_us,
                    default_graph, default_eager, row.candidate.c_str());
    }
    return 0;
}
