// shape_load: where a worker's shape load spends its time (issue #16), on DSV4 I384 shapes.
// Per token count, the phases a load runs one after another, each timed on its own:
//   generate   kernels::generate_problem (inputs and weights from counter-based random bits)
//   reference  kernels::compute_reference (the CPU oracle every rank cross-checks by digest)
//   arrange    gpu::arrange_matrix_weights (the gpu backend's host-side rearrangement before
//              its upload; host C++, timed in every build)
//   upload     kernels::GpuProblem with one copy (the arrangement again + the copies to device
//              0; only in a gpu build with a device, "-" otherwise)
// and the load's total: generate + reference + upload, or + arrange without a device. Both
// digests are printed so that runs before and after a change can be compared bit for bit;
// problem_digest is not part of a load and not in the total. A second table times what the
// worker does for each further token count of the same model: draw the token inputs onto the
// kept weights, the reference, the inputs' upload. A table for people, not a test.
//
//   shape_load [--tokens 1,16,256,1024,2048] [--threads N] [--seed S]
//
// --threads sets the host loops' thread count (host_parallel.hpp); default: the host's cores.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/host_parallel.hpp"
#include "fhmoe/family/builtin_shapes.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/reference.hpp"

#include "gpu/matrix_weights.hpp"

#if defined(FHMOE_SHAPE_LOAD_UPLOAD)
#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/gpu_device.hpp"
#endif

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Options {
    std::vector<std::int64_t> tokens{1, 16, 256, 1024, 2048};
    int threads = 0;  // 0: the host's cores
    std::uint64_t seed = 7;
};

[[noreturn]] void usage(const char* program) {
    std::fprintf(stderr, "usage: %s [--tokens 1,16,256,1024,2048] [--threads N] [--seed S]\n",
                 program);
    std::exit(2);
}

std::vector<std::int64_t> parse_list(const char* text) {
    std::vector<std::int64_t> values;
    std::string item;
    for (const char* c = text;; ++c) {
        if (*c == ',' || *c == '\0') {
            if (!item.empty()) values.push_back(std::strtoll(item.c_str(), nullptr, 10));
            item.clear();
            if (*c == '\0') break;
        } else {
            item.push_back(*c);
        }
    }
    return values;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) usage(argv[0]);
        const char* value = argv[++i];
        if (flag == "--tokens") {
            options.tokens = parse_list(value);
        } else if (flag == "--threads") {
            options.threads = std::atoi(value);
        } else if (flag == "--seed") {
            options.seed = std::strtoull(value, nullptr, 10);
        } else {
            usage(argv[0]);
        }
    }
    if (options.tokens.empty()) usage(argv[0]);
    return options;
}

#if defined(FHMOE_SHAPE_LOAD_UPLOAD)
// Whether device 0 can take an upload; without one the bench still times the arrangement.
bool bind_device() {
    try {
        fhmoe::kernels::gpu::bind_gpu_device(0);
        return true;
    } catch (const std::exception& error) {
        std::printf("no device for the upload column: %s\n", error.what());
        return false;
    }
}
#endif

// The loads a worker makes after its first one of a model: each further token count draws only
// its activations and routing onto the kept weights (generate_token_inputs), runs the
// reference, and uploads only its inputs onto the kept device weights. The weights come from
// the first token count in the list, drawn (and uploaded) before the table.
void print_kept_weight_loads(const Options& options, [[maybe_unused]] bool device) {
    std::printf(
        "\nloads onto kept weights (the worker's next token count of one model); seconds\n");
    std::printf("%-6s %8s %9s %8s %8s  %-16s\n", "tokens", "inputs", "reference", "upload", "total",
                "reference_digest");
    fhmoe::kernels::Problem problem = fhmoe::kernels::generate_problem(
        fhmoe::family::dsv4_i384_shape(options.tokens.front()), options.seed);
#if defined(FHMOE_SHAPE_LOAD_UPLOAD)
    std::shared_ptr<const fhmoe::kernels::GpuWeights> weights;
    if (device) weights = std::make_shared<const fhmoe::kernels::GpuWeights>(problem, 1);
#endif
    for (const std::int64_t tokens : options.tokens) {
        auto start = Clock::now();
        fhmoe::kernels::generate_token_inputs(problem, fhmoe::family::dsv4_i384_shape(tokens));
        const double inputs = seconds_since(start);
        start = Clock::now();
        const fhmoe::kernels::ReferenceOutput reference =
            fhmoe::kernels::compute_reference(problem);
        const double reference_s = seconds_since(start);
        std::string upload_text = "-";
        double upload = 0.0;
#if defined(FHMOE_SHAPE_LOAD_UPLOAD)
        if (weights) {
            start = Clock::now();
            const fhmoe::kernels::GpuProblem uploaded(problem, weights);
            upload = seconds_since(start);
            char text[32];
            std::snprintf(text, sizeof text, "%.3f", upload);
            upload_text = text;
        }
#endif
        std::printf("%-6lld %8.3f %9.3f %8s %8.3f  %016llx\n", static_cast<long long>(tokens),
                    inputs, reference_s, upload_text.c_str(), inputs + reference_s + upload,
                    static_cast<unsigned long long>(reference.digest));
        std::fflush(stdout);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    std::optional<fhmoe::kernels::ScopedHostThreads> threads;
    if (options.threads > 0) threads.emplace(options.threads);
    bool device = false;  // device 0 takes uploads
#if defined(FHMOE_SHAPE_LOAD_UPLOAD)
    device = bind_device();
#endif
    std::printf(
        "shape loads, DSV4 I384 (H 7168, I 384, E 385, topk 7), seed %llu; host cores %u, "
        "threads %d; seconds\n",
        static_cast<unsigned long long>(options.seed), std::thread::hardware_concurrency(),
        fhmoe::kernels::host_threads());
    std::printf("%-6s %8s %9s %8s %8s %8s  %-16s  %-16s\n", "tokens", "generate", "reference",
                "arrange", "upload", "total", "problem_digest", "reference_digest");
    for (const std::int64_t tokens : options.tokens) {
        const auto shape = fhmoe::family::dsv4_i384_shape(tokens);
        auto start = Clock::now();
        const fhmoe::kernels::Problem problem =
            fhmoe::kernels::generate_problem(shape, options.seed);
        const double generate = seconds_since(start);
        const std::uint64_t problem_digest = fhmoe::kernels::problem_digest(problem);

        start = Clock::now();
        const fhmoe::kernels::ReferenceOutput reference =
            fhmoe::kernels::compute_reference(problem);
        const double reference_s = seconds_since(start);

        std::string upload_text = "-";
        start = Clock::now();
        (void)fhmoe::kernels::gpu::arrange_matrix_weights(problem);
        const double arrange = seconds_since(start);
        double upload_or_arrange = arrange;
#if defined(FHMOE_SHAPE_LOAD_UPLOAD)
        if (device) {
            start = Clock::now();
            const fhmoe::kernels::GpuProblem uploaded(problem, 1);
            const double upload = seconds_since(start);
            char text[32];
            std::snprintf(text, sizeof text, "%.3f", upload);
            upload_text = text;
            upload_or_arrange = upload;  // the upload arranges again: counted once
        }
#endif
        std::printf("%-6lld %8.3f %9.3f %8.3f %8s %8.3f  %016llx  %016llx\n",
                    static_cast<long long>(tokens), generate, reference_s, arrange,
                    upload_text.c_str(), generate + reference_s + upload_or_arrange,
                    static_cast<unsigned long long>(problem_digest),
                    static_cast<unsigned long long>(reference.digest));
        std::fflush(stdout);
    }
    print_kept_weight_loads(options, device);
    return 0;
}
