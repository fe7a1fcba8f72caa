#include "fhmoe/cluster/run_evidence_builder.hpp"

#include "fhmoe/tuning/relative_ranking.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "fhmoe/version.hpp"

namespace fhmoe::cluster {
namespace {

evidence::Decision archive_decision(evidence::DecisionKind kind) {
    switch (kind) {
        case evidence::DecisionKind::promote: return evidence::Decision::promote;
        case evidence::DecisionKind::retain: return evidence::Decision::retain;
        case evidence::DecisionKind::incomplete: return evidence::Decision::incomplete;
        case evidence::DecisionKind::all_failed: return evidence::Decision::all_failed;
    }
    return evidence::Decision::incomplete;
}

double or_absent(const std::optional<double>& value) { return value.value_or(evidence::kAbsent); }

std::vector<evidence::PolicyValue> policy_values(const TuneOptions& options) {
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

void add_candidates(evidence::RunEvidence& run, std::uint32_t shape_id,
                    const ShapeProgress& shape) {
    const tuning::IncumbentByChunk incumbents = shape.incumbent_by_chunk();
    for (const auto& result : shape.merged_results()) {
        evidence::CandidateRecord row;
        row.shape_id = shape_id;
        row.result = result;
        if (result.status == tuning::Status::ok && !incumbents.empty() &&
            incumbents.count(result.chunk) != 0) {
            const auto relative = tuning::relative_to_incumbent(result, incumbents);
            if (relative && relative->basis != tuning::RankingBasis::absolute) {
                row.relative_to_incumbent = relative->score;
                row.ratio_basis = relative->basis == tuning::RankingBasis::same_chunk_incumbent
                                      ? evidence::RatioBasis::same_chunk_incumbent
                                      : evidence::RatioBasis::other_chunks_incumbent;
            }
        }
        run.candidates.push_back(std::move(row));
    }
}

void add_race(evidence::RunEvidence& run, std::uint32_t shape_id, const ShapeProgress& shape) {
    if (!shape.race) return;
    for (const auto& contender : shape.race->contenders) {
        for (std::size_t round = 0; round < contender.samples_us.size(); ++round) {
            if (contender.samples_us[round].empty()) continue;
            evidence::RaceSample sample;
            sample.shape_id = shape_id;
            sample.candidate_key = contender.id.key();
            sample.round = static_cast<std::uint32_t>(round);
            sample.time_us = tuning::summarize_samples(contender.samples_us[round]).mean_us;
            sample.is_incumbent = contender.is_incumbent;
            run.race.push_back(std::move(sample));
        }
    }
}

evidence::DecisionRecord archive_decision_row(std::uint32_t shape_id,
                                              const evidence::ShapeDecision& d) {
    evidence::DecisionRecord row;
    row.shape_id = shape_id;
    row.decision = archive_decision(d.kind);
    row.incumbent_key = d.incumbent.key();
    row.incumbent_us = or_absent(d.incumbent_us);
    row.incumbent_stderr_us = or_absent(d.incumbent_stderr_us);
    if (d.challenger) row.winner_key = d.challenger->key();
    row.winner_us = or_absent(d.challenger_us);
    row.winner_stderr_us = or_absent(d.challenger_stderr_us);
    row.margin_pct = or_absent(d.margin_pct);
    if (d.kind == evidence::DecisionKind::promote || d.kind == evidence::DecisionKind::retain) {
        row.bar_pct = d.bar_pct;
        row.noise_floor_pct = d.noise_floor_pct;
    }
    row.reason = d.reason;
    return row;
}

}  // namespace

evidence::RunEvidence build_run_evidence(const TuneOptions& options,
                                         const family::DeviceKey& device,
                                         const std::vector<ShapeProgress>& shapes,
                                         const std::vector<RankState>& ranks,
                                         const RunTimes& times) {
    evidence::RunEvidence run;
    auto& p = run.provenance;
    p.tool_version = std::string(fhmoe::version());
    p.command_line = options.command_line;
    p.backend = options.backend;
    p.seed = options.seed;
    p.started_unix = times.started_unix;
    p.finished_unix = times.finished_unix;
    p.exit_status = times.exit_status;
    p.complete = times.exit_status >= 0;
    p.policy = policy_values(options);
    for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
        evidence::RankInfo info;
        info.rank = static_cast<int>(rank);
        info.host = ranks[rank].host;
        info.device_name = options.backend;
        info.driver = ranks[rank].binding;
        p.ranks.push_back(std::move(info));
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        const ShapeProgress& shape = shapes[i];
        const auto shape_id = static_cast<std::uint32_t>(i);
        run.shapes.push_back(
            evidence::ShapeRecord{device, shape.planned().shape, shape.key(),
                                  static_cast<std::uint32_t>(shape.planned().candidates.size())});
        add_candidates(run, shape_id, shape);
        add_race(run, shape_id, shape);
        if (shape.decision)
            run.decisions.push_back(archive_decision_row(shape_id, *shape.decision));
    }
    return run;
}

}  // namespace fhmoe::cluster
