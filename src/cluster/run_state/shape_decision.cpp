#include "cluster/run_state/shape_decision.hpp"

#include <algorithm>
#include <cstdio>

#include "cluster/run_state/chunk_planner.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/tuning/gate.hpp"
#include "fhmoe/tuning/race.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "fhmoe/wire/measurement_settings.hpp"

namespace fhmoe::cluster {
namespace {

using evidence::DecisionKind;
using evidence::ShapeDecision;

const tuning::CandidateResult& result_of(const tuning::CompleteShape& complete,
                                         std::int64_t planned_index) {
    return complete.results().at(static_cast<std::size_t>(planned_index));
}

ShapeDecision base_decision(const evidence::PlannedShape& planned) {
    ShapeDecision decision;
    decision.shape_key = family::shape_key_string(planned.shape);
    if (!planned.candidates.empty()) {
        decision.incumbent = family::to_candidate_id(
            planned.candidates.at(static_cast<std::size_t>(planned.incumbent_index)));
    }
    return decision;
}

// A retained incumbent is written only when the shape had no row: then the run gives the
// shape its first row (what serving runs anyway, now with a measured time). A shape that had
// a row keeps it byte for byte.
void retain(ShapeDecision& decision, const evidence::PlannedShape& planned,
            const tuning::CompleteShape& complete, double incumbent_us) {
    decision.kind = DecisionKind::retain;
    decision.published = decision.incumbent;
    decision.published_measured_us = incumbent_us;
    decision.incumbent_us = incumbent_us;
    if (!planned.incumbent_from_tuned_row) {
        decision.publish = true;
        decision.published_candidate =
            planned.candidates.at(static_cast<std::size_t>(planned.incumbent_index));
        decision.published_us = incumbent_us;
        decision.published_err =
            result_of(complete, planned.incumbent_index).error.mismatch_fraction;
    }
}

std::string describe_counts(const tuning::CompleteShape& complete) {
    std::map<tuning::Status, int> counts;
    for (const auto& result : complete.results()) ++counts[result.status];
    std::string text;
    for (const auto& [status, count] : counts) {
        if (!text.empty()) text += ", ";
        text += std::to_string(count) + " " + std::string(tuning::to_string(status));
    }
    return text;
}

}  // namespace

bool is_final(const ShapeDecision& decision) { return decision.kind != DecisionKind::incomplete; }

ShapeDecision incomplete_decision(const evidence::PlannedShape& planned, std::string reason) {
    ShapeDecision decision = base_decision(planned);
    decision.kind = DecisionKind::incomplete;
    decision.reason = std::move(reason);
    return decision;
}

std::variant<RaceLineup, ShapeDecision> plan_race(
    const evidence::PlannedShape& planned, const tuning::CompleteShape& complete,
    const tuning::IncumbentByChunk& incumbent_by_chunk, const tuning::FinalistPolicy& policy) {
    const tuning::CandidateId incumbent_id = family::to_candidate_id(
        planned.candidates.at(static_cast<std::size_t>(planned.incumbent_index)));
    const std::vector<tuning::Finalist> finalists = tuning::select_finalists(
        complete, incumbent_by_chunk, static_cast<std::size_t>(policy.finalists), incumbent_id);
    const tuning::CandidateResult& incumbent = result_of(complete, planned.incumbent_index);
    const bool incumbent_ok = incumbent.status == tuning::Status::ok;

    if (finalists.empty()) {
        ShapeDecision decision = base_decision(planned);
        if (incumbent_ok) {
            retain(decision, planned, complete, incumbent.timing.mean_us);
            decision.incumbent_stderr_us = incumbent.timing.stderr_us;
            const auto pruned = static_cast<std::size_t>(
                std::count_if(complete.results().begin(), complete.results().end(),
                              [](const tuning::CandidateResult& r) { return r.screen.pruned; }));
            decision.reason = pruned > 0
                                  ? "no candidate but the incumbent measured in full (" +
                                        describe_counts(complete) + "; " + std::to_string(pruned) +
                                        " of the ok ones pruned by their screen)"
                                  : "no candidate but the incumbent measured ok (" +
                                        describe_counts(complete) + ")";
        } else {
            decision.kind = DecisionKind::all_failed;
            decision.reason = "no candidate measured ok (" + describe_counts(complete) + ")";
        }
        return decision;
    }

    std::map<tuning::CandidateId, std::int64_t> index_of;
    for (std::size_t i = 0; i < planned.candidates.size(); ++i) {
        index_of[family::to_candidate_id(planned.candidates[i])] = static_cast<std::int64_t>(i);
    }
    RaceLineup lineup;
    for (const auto& finalist : finalists) {
        lineup.contenders.push_back(
            planned_candidate(planned, index_of.at(finalist.result.candidate)));
    }
    if (incumbent_ok) {
        lineup.contenders.push_back(planned_candidate(planned, planned.incumbent_index));
        lineup.incumbent_races = true;
    }
    return lineup;
}

supervisor::Race race_for(RaceLineup lineup, const tuning::TuningPolicy& policy) {
    supervisor::Race race;
    race.contenders = std::move(lineup.contenders);
    race.rounds = static_cast<std::uint32_t>(policy.finalist.rounds);
    race.measurement = wire::measurement_settings(policy.measurement);
    race.contender_timeout_s = policy.measurement.timeout_s;
    // Without the incumbent there is nothing to pair with and nothing to stop on: the race
    // is its first batch.
    if (lineup.incumbent_races) {
        supervisor::AdaptiveRounds adaptive;
        adaptive.max_rounds = static_cast<std::uint32_t>(policy.finalist.max_rounds);
        adaptive.incumbent_position = static_cast<std::uint32_t>(race.contenders.size() - 1);
        adaptive.min_improvement_pct = policy.promotion.min_improvement_pct;
        adaptive.false_promotion_rate = policy.promotion.false_promotion_rate;
        adaptive.lower_bound_gate = policy.promotion.lower_bound_gate;
        race.adaptive = adaptive;
    }
    return race;
}

ShapeDecision decide_from_race(const evidence::PlannedShape& planned,
                               const tuning::CompleteShape& complete,
                               const evidence::RaceOutcomeRecord& race,
                               const tuning::PromotionPolicy& policy,
                               const tuning::FinalistPolicy& finalist) {
    FHMOE_CHECK(!race.stopped, "a stopped race decides nothing");
    ShapeDecision decision = base_decision(planned);

    // Every ok contender ran every round (the race is interleaved); one that is short of
    // rounds did not finish the race and cannot be compared.
    std::vector<tuning::RaceContender> contenders;
    for (const auto& record : race.contenders) {
        tuning::RaceContender contender;
        contender.candidate = record.id;
        contender.is_incumbent = record.id == decision.incumbent;
        contender.status = record.status;
        contender.round_means_us = tuning::round_means_of(record.samples_us);
        if (contender.status == tuning::Status::ok &&
            (contender.round_means_us.size() != race.rounds_completed ||
             contender.round_means_us.size() < 2)) {
            contender.status = tuning::Status::not_run;
        }
        contenders.push_back(std::move(contender));
    }
    const tuning::RaceSummary summary =
        tuning::summarize_race(contenders, policy, tuning::race_looks(finalist));
    const tuning::CandidateResult& incumbent_result = result_of(complete, planned.incumbent_index);

    if (summary.incumbent && summary.contenders[*summary.incumbent].status == tuning::Status::ok) {
        decision.incumbent_us = summary.contenders[*summary.incumbent].over_rounds.mean_us;
        decision.incumbent_stderr_us = summary.contenders[*summary.incumbent].over_rounds.stderr_us;
    }
    if (!summary.challenger) {
        if (decision.incumbent_us) {
            retain(decision, planned, complete, *decision.incumbent_us);
            decision.reason = "no finalist finished the race";
        } else {
            decision.kind = DecisionKind::all_failed;
            decision.reason = "no contender finished the race ok";
        }
        return decision;
    }

    const tuning::ContenderSummary& challenger = summary.contenders[*summary.challenger];
    decision.best_challenger = challenger.candidate;
    decision.best_challenger_us = challenger.over_rounds.mean_us;
    decision.best_challenger_stderr_us = challenger.over_rounds.stderr_us;
    tuning::GateDecision gate;
    if (summary.incumbent) {
        gate = *tuning::gate_race(summary, policy);
    } else {
        // The incumbent did not race because it failed its chunks: the gate is told its
        // status, so the reason names it.
        const tuning::Measured incumbent{incumbent_result.status, 0.0, 0.0};
        const tuning::Measured challenger_measured{
            tuning::Status::ok, challenger.over_rounds.mean_us, challenger.over_rounds.stderr_us};
        gate = tuning::gate_against_incumbent(incumbent, challenger_measured, policy, 0.0);
    }
    decision.margin_pct = gate.margin_pct;
    decision.bar_pct = gate.bar_pct;
    decision.noise_floor_pct = gate.noise_floor_pct;
    decision.reason = gate.reason;

    if (gate.verdict == tuning::Verdict::promote) {
        decision.kind = DecisionKind::promote;
        decision.published = challenger.candidate;
        decision.published_measured_us = challenger.over_rounds.mean_us;
        decision.publish = true;
        decision.published_candidate = family::from_candidate_id(challenger.candidate);
        decision.published_us = challenger.over_rounds.mean_us;
        for (const auto& result : complete.results()) {
            if (result.candidate == challenger.candidate) {
                decision.published_err = result.error.mismatch_fraction;
            }
        }
    } else {
        const std::string reason = decision.reason;
        retain(decision, planned, complete, *decision.incumbent_us);
        decision.reason = reason;
        decision.margin_pct = gate.margin_pct;
    }
    return decision;
}

}  // namespace fhmoe::cluster
