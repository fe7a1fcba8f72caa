// worker_overhead: what supervision costs, per backend. Prints a table of
//   start-up      spawn -> hello -> first load answered, minus the load itself
//   shape load    data generation + reference inside the worker (its own clock)
//   per candidate wall time between consecutive results minus the time inside the timed
//                 region (sum of the timed samples): preflight, construction, the checked
//                 run, framing and the pipe
// Usage: worker_overhead [path/to/fhmoe_worker]  (default: beside this program, or the
// build tree's src/app/fhmoe_worker).

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/supervisor/run_blocking.hpp"
#include "fhmoe/supervisor/supervisor.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "fhmoe/worker/backend_kind.hpp"
#include "support/small_shape.hpp"

namespace {

using namespace fhmoe;
using Clock = std::chrono::steady_clock;
using tuning::median;

constexpr int startups = 5;
constexpr std::size_t candidates_per_chunk = 12;
constexpr std::uint32_t timed_iters = 5;

std::string find_worker(int argc, char** argv) {
    if (argc > 1) return argv[1];
    const auto self = std::filesystem::read_symlink("/proc/self/exe").parent_path();
    for (const auto& candidate :
         {self / "fhmoe_worker", self / ".." / "src" / "app" / "fhmoe_worker"}) {
        if (std::filesystem::exists(candidate)) return candidate.string();
    }
    throw Error("fhmoe_worker not found; pass its path");
}

family::ShapeKey bench_shape() { return test_support::small_shape(16); }

supervisor::Chunk make_chunk(std::size_t count, std::uint64_t seed) {
    supervisor::Chunk chunk;
    chunk.shape = bench_shape();
    chunk.seed = seed;
    chunk.measurement = {0, timed_iters, 1.0, 1e-2, 1e-2};  // errRatio 1: time every candidate
    chunk.candidate_timeout_s = 60.0;
    const auto catalogue = family::build_catalogue(chunk.shape);
    for (std::size_t i = 0; i < count && i < catalogue.size(); ++i) {
        chunk.candidates.push_back(
            {static_cast<std::int64_t>(i), family::to_candidate_id(catalogue[i]), catalogue[i], 0});
    }
    return chunk;
}

struct Row {
    double startup_ms;
    double load_ms;
    double per_candidate_wall_ms;
    double per_candidate_timed_ms;
    double per_candidate_overhead_ms;
};

Row measure(const std::string& worker, worker::BackendKind backend) {
    std::vector<double> startup_ms, load_ms, overhead_ms, timed_ms, wall_ms;
    for (int trial = 0; trial < startups; ++trial) {
        supervisor::SupervisorConfig config;
        config.worker_executable = worker;
        config.backend = backend;
        supervisor::Supervisor supervisor(config);
        const bool long_chunk = trial == 0;
        const auto start = Clock::now();
        auto previous = start;
        supervisor::run_chunk(
            supervisor, make_chunk(long_chunk ? candidates_per_chunk : 1, 1),
            [&](const supervisor::Event& event) {
                const auto now = Clock::now();
                if (const auto* loaded = std::get_if<supervisor::ShapeLoaded>(&event)) {
                    const double wall =
                        std::chrono::duration<double, std::milli>(now - start).count();
                    load_ms.push_back(loaded->seconds * 1e3);
                    startup_ms.push_back(wall - loaded->seconds * 1e3);
                    previous = now;
                } else if (const auto* m = std::get_if<supervisor::CandidateMeasured>(&event)) {
                    const double wall =
                        std::chrono::duration<double, std::milli>(now - previous).count();
                    previous = now;
                    if (!long_chunk || m->result.status != tuning::Status::ok) return;
                    // The sim's times are modelled, not waited for: none of its wall time is
                    // inside a timed region.
                    const double timed =
                        backend == worker::BackendKind::sim
                            ? 0.0
                            : m->result.timing.mean_us * m->result.timing.n_raw * 1e-3;
                    overhead_ms.push_back(wall - timed);
                    timed_ms.push_back(timed);
                    wall_ms.push_back(wall);
                }
            });
        supervisor.shutdown();
    }
    FHMOE_CHECK(!wall_ms.empty(),
                std::string("no candidate of the long chunk measured ok on the ") +
                    std::string(worker::backend_name(backend)) + " backend");
    return {median(startup_ms), median(load_ms), median(wall_ms), median(timed_ms),
            median(overhead_ms)};
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string worker = find_worker(argc, argv);
        std::printf(
            "worker: %s\nshape: %s, %zu candidates, warmup 0, iters %u; medians of %d "
            "start-ups\n\n",
            worker.c_str(), family::shape_key_string(bench_shape()).c_str(), candidates_per_chunk,
            timed_iters, startups);
        std::printf("%-8s %12s %10s %18s %18s %21s\n", "backend", "start-up ms", "load ms",
                    "wall/candidate ms", "timed region ms", "overhead/candidate ms");
        for (const worker::BackendKind backend :
             {worker::BackendKind::sim, worker::BackendKind::cpu}) {
            const Row row = measure(worker, backend);
            std::printf("%-8s %12.2f %10.2f %18.2f %18.2f %21.2f\n",
                        std::string(worker::backend_name(backend)).c_str(), row.startup_ms,
                        row.load_ms, row.per_candidate_wall_ms, row.per_candidate_timed_ms,
                        row.per_candidate_overhead_ms);
        }
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "worker_overhead: %s\n", error.what());
        return 1;
    }
}
