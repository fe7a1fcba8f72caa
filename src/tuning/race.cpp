#include "fhmoe/tuning/race.hpp"

#include <cstdio>
#include <string>
#include <utility>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace fhmoe::tuning {

std::vector<std::size_t> race_order(std::size_t n_contenders, std::size_t round) {
    FHMOE_CHECK(n_contenders > 0, "a race needs at least one contender");
    std::vector<std::size_t> order(n_contenders);
    for (std::size_t position = 0; position < n_contenders; ++position) {
        order[position] = (position + round) % n_contenders;
    }
    return order;
}

std::vector<double> round_means_of(const std::vector<std::vector<double>>& samples_per_round) {
    std::vector<double> means;
    for (const std::vector<double>& round : samples_per_round) {
        if (!round.empty()) means.push_back(summarize_samples(round).mean_us);
    }
    return means;
}

std::vector<std::size_t> race_looks(const FinalistPolicy& policy) {
    FHMOE_CHECK(policy.rounds >= 2 && policy.max_rounds >= policy.rounds,
                "race looks of rounds " + std::to_string(policy.rounds) + ", max_rounds " +
                    std::to_string(policy.max_rounds));
    const auto batch = static_cast<std::size_t>(policy.rounds);
    const auto cap = static_cast<std::size_t>(policy.max_rounds);
    std::vector<std::size_t> looks;
    for (std::size_t rounds = batch; rounds < cap; rounds += batch) looks.push_back(rounds);
    looks.push_back(cap);
    return looks;
}

namespace {

// Strict "runs faster" order among ok contenders, total thanks to the key.
bool faster(const ContenderSummary& a, const ContenderSummary& b) {
    if (a.over_rounds.mean_us != b.over_rounds.mean_us) {
        return a.over_rounds.mean_us < b.over_rounds.mean_us;
    }
    if (a.is_incumbent != b.is_incumbent) return a.is_incumbent;
    return a.candidate.key() < b.candidate.key();
}

// Larger paired margin first; ties (equal margins) as `faster`.
bool paired_better(const ContenderSummary& a, const ContenderSummary& b) {
    const double margin_a = a.versus_incumbent->mean_log_ratio;
    const double margin_b = b.versus_incumbent->mean_log_ratio;
    if (margin_a != margin_b) return margin_a > margin_b;
    return faster(a, b);
}

std::optional<std::size_t> best_paired(const std::vector<ContenderSummary>& contenders) {
    std::optional<std::size_t> best;
    for (std::size_t index = 0; index < contenders.size(); ++index) {
        if (!contenders[index].versus_incumbent) continue;
        if (!best || paired_better(contenders[index], contenders[*best])) best = index;
    }
    return best;
}

std::optional<std::size_t> fastest_ok(const std::vector<ContenderSummary>& contenders,
                                      bool include_incumbent) {
    std::optional<std::size_t> best;
    for (std::size_t index = 0; index < contenders.size(); ++index) {
        const ContenderSummary& contender = contenders[index];
        if (contender.status != Status::ok) continue;
        if (contender.is_incumbent && !include_incumbent) continue;
        if (!best || faster(contender, contenders[*best])) best = index;
    }
    return best;
}

Measured measured_of(const ContenderSummary& contender) {
    return Measured{contender.status, contender.over_rounds.mean_us,
                    contender.over_rounds.stderr_us};
}

}  // namespace

std::optional<std::size_t> fastest_contender(const std::vector<ContenderSummary>& contenders) {
    return fastest_ok(contenders, true);
}

RaceSummary summarize_race(const std::vector<RaceContender>& contenders,
                           const PromotionPolicy& policy, const std::vector<std::size_t>& looks) {
    FHMOE_CHECK(!looks.empty(), "a race analysed at no look");
    RaceSummary race;
    race.looks = looks;
    race.look_rate = policy.false_promotion_rate / static_cast<double>(looks.size());
    std::optional<std::size_t> rounds;
    for (std::size_t index = 0; index < contenders.size(); ++index) {
        const RaceContender& contender = contenders[index];
        ContenderSummary summary{contender.candidate, contender.is_incumbent, contender.status,
                                 TimingStats{},       std::nullopt,           std::nullopt};
        if (contender.is_incumbent) {
            FHMOE_CHECK(!race.incumbent, "more than one race contender is the incumbent");
            race.incumbent = index;
        }
        if (contender.status == Status::ok) {
            const std::size_t count = contender.round_means_us.size();
            FHMOE_CHECK(count >= 2, contender.candidate.key() + " raced " + std::to_string(count) +
                                        " round(s); at least 2 needed");
            FHMOE_CHECK(!rounds || *rounds == count,
                        contender.candidate.key() + " raced " + std::to_string(count) +
                            " rounds, others " + std::to_string(rounds.value_or(0)));
            rounds = count;
            summary.over_rounds = summarize_samples(contender.round_means_us);
        }
        race.contenders.push_back(std::move(summary));
    }
    race.rounds = rounds.value_or(0);
    while (race.look + 1 < looks.size() && looks[race.look + 1] <= race.rounds) ++race.look;
    race.fastest = fastest_contender(race.contenders);
    for (const ContenderSummary& contender : race.contenders) {
        if (contender.status == Status::ok && !contender.is_incumbent) ++race.compared_finalists;
    }
    const bool incumbent_ok =
        race.incumbent && race.contenders[*race.incumbent].status == Status::ok;
    if (!incumbent_ok || race.compared_finalists == 0) {
        race.challenger = fastest_ok(race.contenders, false);
        return race;
    }
    const std::vector<double>& incumbent_rounds = contenders[*race.incumbent].round_means_us;
    for (std::size_t index = 0; index < contenders.size(); ++index) {
        ContenderSummary& summary = race.contenders[index];
        if (summary.status != Status::ok || summary.is_incumbent) continue;
        summary.versus_incumbent =
            compare_paired(incumbent_rounds, contenders[index].round_means_us);
    }
    race.alpha_per_finalist = race.look_rate / static_cast<double>(race.compared_finalists);
    for (ContenderSummary& summary : race.contenders) {
        if (!summary.versus_incumbent) continue;
        summary.margin_upper_pct =
            paired_margin_upper_bound_pct(*summary.versus_incumbent, race.alpha_per_finalist);
    }
    race.challenger = best_paired(race.contenders);
    race.noise_pct = paired_noise_floor_pct(*race.contenders[*race.challenger].versus_incumbent,
                                            race.alpha_per_finalist);
    return race;
}

std::optional<GateDecision> gate_race(const RaceSummary& race, const PromotionPolicy& policy) {
    if (!race.challenger) return std::nullopt;
    std::optional<Measured> incumbent;
    if (race.incumbent) incumbent = measured_of(race.contenders[*race.incumbent]);
    const ContenderSummary& challenger = race.contenders[*race.challenger];
    std::optional<double> paired_margin;
    if (challenger.versus_incumbent) paired_margin = challenger.versus_incumbent->margin_pct;
    GateDecision decision = gate_against_incumbent(incumbent, measured_of(challenger), policy,
                                                   race.noise_pct.value_or(0.0), paired_margin);
    if (challenger.versus_incumbent) {
        const PairedComparison& paired = *challenger.versus_incumbent;
        char text[200];
        std::snprintf(
            text, sizeof text,
            "; paired over %zu rounds (look %zu of %zu), one-sided t test at %.4g (%.4g / %zu "
            "looks / %zu finalists), t %.3f",
            paired.rounds, race.look + 1, race.looks.size(), race.alpha_per_finalist,
            policy.false_promotion_rate, race.looks.size(), race.compared_finalists,
            student_t_quantile(1.0 - race.alpha_per_finalist, static_cast<int>(paired.rounds) - 1));
        decision.reason += text;
    }
    return decision;
}

bool race_needs_more_rounds(const RaceSummary& race, const PromotionPolicy& policy) {
    if (race.look + 1 >= race.looks.size()) return false;
    if (!race.challenger || !race.contenders[*race.challenger].versus_incumbent) return false;
    if (gate_race(race, policy)->verdict == Verdict::promote) return false;
    for (const ContenderSummary& contender : race.contenders) {
        if (contender.margin_upper_pct &&
            meets_bar(*contender.margin_upper_pct, policy.min_improvement_pct)) {
            return true;
        }
    }
    return false;
}

}  // namespace fhmoe::tuning
