#include "fhmoe/cluster/run_session.hpp"

#include <string>

#include "fhmoe/version.hpp"

namespace fhmoe::cluster {
namespace {

// Named by the tuner's CLI flags (the archive's /policy rows); candidate_sample 0 means the
// whole catalogue.
std::vector<std::pair<std::string, double>> policy_values(const TuneOptions& options) {
    const auto& p = options.policy;
    return {
        {"warmup", static_cast<double>(p.measurement.warmup)},
        {"iters", static_cast<double>(p.measurement.iters)},
        {"errRatio", p.measurement.err_ratio},
        {"rtol", p.measurement.rtol},
        {"atol", p.measurement.atol},
        {"max_cosine_distance", p.measurement.max_cosine_distance},
        {"timeout", p.measurement.timeout_s},
        {"batch", static_cast<double>(p.run.batch)},
        {"min_improvement_pct", p.promotion.min_improvement_pct},
        {"noise_floor_sigmas", p.promotion.noise_floor_sigmas},
        {"finalists", static_cast<double>(p.finalist.finalists)},
        {"rounds", static_cast<double>(p.finalist.rounds)},
        {"candidate_sample",
         options.candidate_sample ? static_cast<double>(*options.candidate_sample) : 0.0},
    };
}

}  // namespace

evidence::SessionStartedRecord session_started(const TuneOptions& options,
                                               const family::DeviceKey& device, int world_size,
                                               std::int64_t started_unix) {
    evidence::SessionStartedRecord record;
    record.command_line = options.command_line;
    record.backend = options.backend;
    record.seed = options.seed;
    record.device = device;
    record.world_size = world_size;
    record.started_unix = started_unix;
    record.tool_version = std::string(fhmoe::version());
    record.policy = policy_values(options);
    return record;
}

}  // namespace fhmoe::cluster
