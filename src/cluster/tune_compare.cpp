#include "cluster/tune_compare.hpp"

#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "cluster/replay.hpp"
#include "fhmoe/config/file_error.hpp"
#include "fhmoe/config/file_lock.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/tuning/measured.hpp"

namespace fhmoe::cluster {

CompareOutcome compare_and_update(const TuneOptions& options, const family::DeviceKey& device,
                                  const std::vector<DecidedShape>& decided,
                                  const supervisor::SupervisorConfig& config,
                                  TerminationSignals& signals) {
    std::vector<ReplayTarget> targets;
    std::vector<const DecidedShape*> compared;
    for (const auto& shape : decided) {
        if (!shape.decision->publish) continue;
        const auto& planned = *shape.planned;
        targets.push_back(ReplayTarget{
            planned.shape, planned.candidates.at(static_cast<std::size_t>(planned.incumbent_index)),
            planned.incumbent_from_tuned_row ? "pre: tuned row" : "pre: default config"});
        targets.push_back(
            ReplayTarget{planned.shape, shape.decision->published_candidate, "post: new row"});
        compared.push_back(&shape);
    }
    const auto outcomes = replay(targets, config, options, signals);

    std::map<std::string, tuning::Measured> pre;
    std::map<std::string, tuning::Measured> post;
    std::map<std::string, const DecidedShape*> by_key;
    for (std::size_t i = 0; i < compared.size(); ++i) {
        const std::string key =
            config::lookup_key_string(config::lookup_key(device, compared[i]->planned->shape));
        pre[key] = tuning::measured_from(outcomes[2 * i].result);
        post[key] = tuning::measured_from(outcomes[2 * i + 1].result);
        by_key[key] = compared[i];
    }
    CompareOutcome outcome;
    outcome.plan = tuning::build_compare_plan(pre, post, options.policy.promotion);
    const auto& plan = outcome.plan;

    std::printf("compare (production e2e replay, bar %.2f%% or the noise floor):\n",
                options.policy.promotion.min_improvement_pct);
    std::vector<config::TunedRow> improved;
    for (const auto& row : plan) {
        std::printf("  %-40s pre %10.3f us  post %10.3f us  %+7.2f%%  %-13s %s\n",
                    row.shape_key.c_str(), row.pre ? row.pre->mean_us : NAN,
                    row.post ? row.post->mean_us : NAN, row.improvement_pct,
                    std::string(tuning::to_string(row.update_reason)).c_str(), row.detail.c_str());
        if (row.update) {
            const DecidedShape* shape = by_key.at(row.shape_key);
            improved.push_back(tuned_row_for(device, *shape->planned, *shape->decision));
        }
    }
    std::fflush(stdout);
    if (!options.update_improved) {
        spdlog::info(
            "--compare without --update_improved: {} left unchanged ({} rows would "
            "improve)",
            options.tuned_path, improved.size());
        return outcome;
    }
    try {
        const auto update = publish_rows(
            options.tuned_path, improved,
            std::chrono::milliseconds(static_cast<long>(options.lock_timeout_s * 1000)));
        spdlog::info("--update_improved: {} rows written to {} ({} replaced, {} added)",
                     improved.size(), options.tuned_path, update.replaced, update.added);
    } catch (const config::LockTimeoutError& error) {
        outcome.lock_timed_out = true;
        spdlog::error("{} not written: {}", options.tuned_path, error.what());
    } catch (const config::FileError& error) {
        // A full disk: the CSV is replaced atomically, so the previous one is whole.
        outcome.write_failed = true;
        spdlog::error("{} not written: {}", options.tuned_path, error.what());
    }
    return outcome;
}

}  // namespace fhmoe::cluster
