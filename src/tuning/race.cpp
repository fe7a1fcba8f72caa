#include "fhmoe/tuning/race.hpp"

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

namespace {

// Strict "runs faster" order among ok contenders, total thanks to the key.
bool faster(const ContenderSummary& a, const ContenderSummary& b) {
    if (a.over_rounds.mean_us != b.over_rounds.mean_us) {
        return a.over_rounds.mean_us < b.over_rounds.mean_us;
    }
    if (a.is_incumbent != b.is_incumbent) return a.is_incumbent;
    return a.candidate.key() < b.candidate.key();
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

std::optional<std::size_t> choose_race_winner(const std::vector<ContenderSummary>& contenders) {
    return fastest_ok(contenders, true);
}

RaceSummary summarize_race(const std::vector<RaceContender>& contenders,
                           const PromotionPolicy& policy) {
    RaceSummary race;
    std::optional<std::size_t> rounds;
    for (std::size_t index = 0; index < contenders.size(); ++index) {
        const RaceContender& contender = contenders[index];
        ContenderSummary summary{contender.candidate, contender.is_incumbent, contender.status,
                                 TimingStats{}};
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
    race.winner = choose_race_winner(race.contenders);
    race.challenger = fastest_ok(race.contenders, false);
    if (race.incumbent && race.challenger &&
        race.contenders[*race.incumbent].status == Status::ok) {
        const TimingStats& incumbent = race.contenders[*race.incumbent].over_rounds;
        const TimingStats& challenger = race.contenders[*race.challenger].over_rounds;
        race.noise_pct = noise_floor_pct(incumbent.mean_us, incumbent.stderr_us,
                                         challenger.stderr_us, policy.noise_floor_sigmas);
    }
    return race;
}

std::optional<GateDecision> gate_race(const RaceSummary& race, const PromotionPolicy& policy) {
    if (!race.challenger) return std::nullopt;
    std::optional<Measured> incumbent;
    if (race.incumbent) incumbent = measured_of(race.contenders[*race.incumbent]);
    return gate_against_incumbent(incumbent, measured_of(race.contenders[*race.challenger]), policy,
                                  race.noise_pct.value_or(0.0));
}

}  // namespace fhmoe::tuning
