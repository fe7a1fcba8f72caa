#pragma once

// Shared by the supervisor tests: a tiny shape, a few of its candidates planned at indices
// that do not start at 0 (a chunk from the middle of a shape's list), and a recorder of
// everything a chunk streams.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/supervisor/run_blocking.hpp"
#include "fhmoe/supervisor/supervisor.hpp"
#include "support/small_shape.hpp"

namespace fhmoe::supervisor::testing {

inline family::ShapeKey tiny_shape() { return test_support::small_shape(3); }

// Planned indices start here, so a test proves faults and results follow the planned index.
inline constexpr std::int64_t first_planned_index = 4;
inline constexpr double sim_deadline_s = 1.5;
// The cpu candidates of the tiny shape take well under 0.1 s each alone; the deadline
// leaves room for a build machine shared with compilers.
inline constexpr double cpu_deadline_s = 3.0;

// Candidates with a fused fp8 stage1 output: on the cpu backend they pass the accuracy check
// of the tiny shape, so a mismatch in these tests can only be the injected one.
inline std::vector<PlannedCandidate> planned_candidates(std::size_t count) {
    std::vector<PlannedCandidate> planned;
    for (const family::Candidate& c : family::build_catalogue(tiny_shape())) {
        if (!c.stage1.fused_fp8_out || c.block_m != 32) continue;
        planned.push_back({first_planned_index + static_cast<std::int64_t>(planned.size()),
                           family::to_candidate_id(c), c, 0});
        if (planned.size() == count) break;
    }
    return planned;
}

inline Chunk make_chunk(const std::string& backend, std::size_t count, std::int64_t chunk_id = 1,
                        std::uint64_t seed = 7) {
    Chunk chunk;
    chunk.chunk_id = chunk_id;
    chunk.shape = tiny_shape();
    chunk.seed = seed;
    chunk.candidates = planned_candidates(count);
    chunk.measurement = {1, 3, 0.05, 1e-2, 1e-2};
    chunk.candidate_timeout_s = backend == "cpu" ? cpu_deadline_s : sim_deadline_s;
    return chunk;
}

inline SupervisorConfig make_config(const std::string& backend, const std::string& faults = "",
                                    std::vector<std::string> extra = {}) {
    SupervisorConfig config;
    config.worker_executable = FHMOE_WORKER_PATH;
    config.backend = worker::parse_backend_kind(backend, "backend");
    config.rank = 5;
    config.startup_timeout_s = 20.0;
    config.load_timeout_s = 20.0;
    config.stop_grace_s = 0.3;
    if (!faults.empty()) config.worker_args = {"--inject-fault", faults};
    if (backend == "cpu") extra.insert(extra.end(), {"--cpu-threads", "1"});
    config.worker_args.insert(config.worker_args.end(), extra.begin(), extra.end());
    return config;
}

struct Recording {
    std::vector<Event> events;
    std::size_t searched = 0;  // events already looked at by a poll-until-match loop
    std::map<std::int64_t, std::vector<tuning::CandidateResult>> results;  // by planned index
    std::vector<WorkerRestarted> restarts;
    std::vector<ShapeLoaded> loads;
    std::vector<ShapeLoadFailed> load_failures;
    int chunks_done = 0;
    bool stopped = false;
    double seconds = 0.0;

    void record(const Event& event) {
        events.push_back(event);
        if (const auto* m = std::get_if<CandidateMeasured>(&event)) {
            EXPECT_EQ(chunks_done, 0) << "a result after ChunkDone";
            results[m->planned_index].push_back(m->result);
        } else if (const auto* r = std::get_if<WorkerRestarted>(&event)) {
            restarts.push_back(*r);
        } else if (const auto* l = std::get_if<ShapeLoaded>(&event)) {
            loads.push_back(*l);
        } else if (const auto* f = std::get_if<ShapeLoadFailed>(&event)) {
            load_failures.push_back(*f);
        } else if (const auto* d = std::get_if<ChunkDone>(&event)) {
            ++chunks_done;
            stopped = d->stopped;
        }
    }

    const tuning::CandidateResult& only(std::int64_t planned_index) const {
        const auto& list = results.at(planned_index);
        EXPECT_EQ(list.size(), 1U)
            << "candidate #" << planned_index << " got " << list.size() << " results";
        return list.front();
    }
};

inline Recording record_chunk(Supervisor& supervisor, Chunk chunk) {
    Recording recording;
    const auto start = std::chrono::steady_clock::now();
    run_chunk(supervisor, std::move(chunk), [&](const Event& e) { recording.record(e); });
    recording.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return recording;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace fhmoe::supervisor::testing
