#include "cluster/replay.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "cluster/row_candidate.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/default_config.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/supervisor/run_blocking.hpp"

namespace fhmoe::cluster {
namespace {

std::vector<ReplayTarget> targets_from_csv(const std::string& path,
                                           const family::DeviceKey& device) {
    const config::TunedTable table = config::read_tuned_csv(path);
    std::vector<ReplayTarget> targets;
    for (const auto& record : table.records) {
        if (record.row.device != device) continue;
        targets.push_back(ReplayTarget{record.row.shape,
                                       candidate_of_row(record, record.row.shape, path),
                                       path + ":" + std::to_string(record.line)});
    }
    if (targets.empty()) {
        spdlog::warn("{}: no row for {}/{}", path, device.gfx, device.cu_num);
    }
    return targets;
}

std::vector<ReplayTarget> targets_from_lookup(const TuneOptions& options,
                                              const family::DeviceKey& device) {
    const config::UntunedTable untuned = config::read_untuned_csv(options.untuned_path);
    const config::TunedTable tuned = config::read_tuned_csv_if_exists(options.tuned_path);
    const config::TunedIndex index(tuned);
    std::vector<ReplayTarget> targets;
    for (const auto& shape : untuned.shapes) {
        if (config::device_for(shape, device) != device) continue;
        if (family::why_shape_unsupported(shape.shape)) continue;
        if (const config::TunedRecord* row = index.find(device, shape.shape)) {
            targets.push_back(ReplayTarget{shape.shape,
                                           candidate_of_row(*row, shape.shape, options.tuned_path),
                                           options.tuned_path + ":" + std::to_string(row->line)});
        } else {
            targets.push_back(ReplayTarget{shape.shape, family::default_candidate(shape.shape),
                                           "default config"});
        }
    }
    return targets;
}

}  // namespace

std::vector<ReplayOutcome> replay(const std::vector<ReplayTarget>& targets,
                                  const supervisor::SupervisorConfig& config,
                                  const TuneOptions& options, TerminationSignals& signals) {
    supervisor::Supervisor fresh(config);
    std::vector<ReplayOutcome> outcomes;
    std::int64_t chunk_id = 0;
    for (const auto& target : targets) {
        ReplayOutcome outcome{target, {}};
        outcome.result.shape_key = family::shape_key_string(target.shape);
        outcome.result.candidate = family::to_candidate_id(target.candidate);
        outcome.result.detail = "not replayed: the run was stopped";
        if (!signals.requested()) {
            supervisor::Chunk chunk;
            chunk.chunk_id = chunk_id++;
            chunk.shape = target.shape;
            chunk.seed = options.seed;
            chunk.candidates.push_back(
                supervisor::PlannedCandidate{0, outcome.result.candidate, target.candidate});
            const auto& m = options.policy.measurement;
            chunk.measurement = wire::measurement_settings(m);
            chunk.candidate_timeout_s = m.timeout_s;
            supervisor::run_chunk(fresh, std::move(chunk), [&](const supervisor::Event& event) {
                if (const auto* measured = std::get_if<supervisor::CandidateMeasured>(&event)) {
                    outcome.result = measured->result;
                }
            });
        }
        outcomes.push_back(std::move(outcome));
    }
    fresh.shutdown();
    return outcomes;
}

ExitCode run_config_replay(const TuneOptions& options, const family::DeviceKey& device,
                           const supervisor::SupervisorConfig& config,
                           TerminationSignals& signals) {
    const std::vector<ReplayTarget> targets = options.run_config->empty()
                                                  ? targets_from_lookup(options, device)
                                                  : targets_from_csv(*options.run_config, device);
    const auto outcomes = replay(targets, config, options, signals);
    std::printf("%-28s %6s %-14s %10s %10s %11s  %s\n", "shape", "lookup", "status", "e2e_us",
                "stderr_us", "mismatch", "kernels (source)");
    bool all_ok = true;
    for (const auto& outcome : outcomes) {
        const auto& r = outcome.result;
        all_ok = all_ok && r.status == tuning::Status::ok;
        std::printf("%-28s %6lld %-14s %10.3f %10.3f %11.3g  %s (%s)%s%s\n",
                    family::shape_key_string(outcome.target.shape).c_str(),
                    static_cast<long long>(family::padded_token(outcome.target.shape.token)),
                    std::string(tuning::to_string(r.status)).c_str(), r.timing.mean_us,
                    r.timing.stderr_us, r.error.mismatch_fraction, r.candidate.key().c_str(),
                    outcome.target.source.c_str(), r.detail.empty() ? "" : ": ", r.detail.c_str());
    }
    std::fflush(stdout);
    if (signals.requested()) return ExitCode::interrupted;
    return all_ok ? ExitCode::all_decided : ExitCode::incomplete;
}

}  // namespace fhmoe::cluster
