// decision_quality: how often the race gate decides wrong, measured by a seeded Monte Carlo
// through the tuning library's own functions (summarize_samples, noise_floor_pct,
// gate_against_incumbent for the rule before paired rounds; summarize_race and gate_race
// for today's). A table for people, not a test.
//
//   decision_quality [trials per cell] [seed] [false_promotion_rate]
//   (defaults: 10000, 1, the default policy's rate)
//
// One simulated race: the incumbent (true time 100 us) and `finalists` finalists run in R
// interleaved rounds. A contender's round mean is its true time times
// exp(common_r + own_r): common_r ~ N(0, s_c^2) is shared by every contender of round r (a
// neighbour's load, a clock step), own_r ~ N(0, s_o^2) is the contender's own. The round CV
// is sqrt(s_c^2 + s_o^2); "common" is the share s_c^2 / CV^2 of that variance.
//
//   false promotion  every finalist as fast as the incumbent: the rate of any promotion
//   power            one finalist truly 5% faster, the others as fast as the incumbent: the
//                    rate at which that one is promoted
//
// The policy is the default (min_improvement_pct 3, false_promotion_rate as the default
// policy says, 4 finalists); `old` is the rule before paired rounds: the fastest mean, a
// noise floor of 2 combined standard errors of the two means. Rates carry a 95% binomial
// interval half-width. The last line is for scripts:
//   false_promotion_max_pct=X power5_cv2_pct=Y power5_cv5_pct=Z
// X is the worst false-promotion rate of the default rule over the grid; Y and Z its power
// for a true 5% win at round CV 2% and 5% at the default 5 rounds, common share 0.5.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/gate.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/tuning/race.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace {

using namespace fhmoe::tuning;

constexpr double incumbent_us = 100.0;
constexpr double true_win = 0.05;
constexpr double old_rule_sigmas = 2.0;

enum class Rule { old_unpaired, paired, paired_lower_bound };

const char* name_of(Rule rule) {
    switch (rule) {
        case Rule::old_unpaired: return "old";
        case Rule::paired: return "paired";
        case Rule::paired_lower_bound: return "paired+lcb";
    }
    return "?";
}

// Box-Muller on mt19937_64: the same draws on every standard library.
class Normal {
public:
    explicit Normal(std::uint64_t seed) : random_(seed) {}
    double operator()() {
        const double u1 = 1.0 - uniform_(random_);
        const double u2 = uniform_(random_);
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::acos(-1.0) * u2);
    }

private:
    std::mt19937_64 random_;
    std::uniform_real_distribution<double> uniform_{0.0, 1.0};
};

struct Cell {
    double cv = 0.0;
    double common_share = 0.0;
    int rounds = 0;
};

// Contender 0 is the incumbent; true_us[i] the true time of finalist i.
std::vector<RaceContender> simulate_race(const Cell& cell, const std::vector<double>& true_us,
                                         Normal& normal) {
    const double common_sd = cell.cv * std::sqrt(cell.common_share);
    const double own_sd = cell.cv * std::sqrt(1.0 - cell.common_share);
    std::vector<RaceContender> race(true_us.size() + 1);
    race[0].candidate = CandidateId{32, "incumbent", "s2"};
    race[0].is_incumbent = true;
    for (std::size_t i = 0; i < true_us.size(); ++i) {
        race[i + 1].candidate = CandidateId{64, "finalist" + std::to_string(i), "s2"};
    }
    for (int round = 0; round < cell.rounds; ++round) {
        const double common = common_sd * normal();
        race[0].round_means_us.push_back(incumbent_us * std::exp(common + own_sd * normal()));
        for (std::size_t i = 0; i < true_us.size(); ++i) {
            race[i + 1].round_means_us.push_back(true_us[i] * std::exp(common + own_sd * normal()));
        }
    }
    return race;
}

// The index of the promoted contender, or -1.
int promoted_by_old_rule(const std::vector<RaceContender>& race, const PromotionPolicy& policy) {
    const TimingStats incumbent = summarize_samples(race[0].round_means_us);
    std::size_t best = 1;
    std::vector<TimingStats> stats(race.size());
    for (std::size_t i = 1; i < race.size(); ++i) {
        stats[i] = summarize_samples(race[i].round_means_us);
        if (stats[i].mean_us < stats[best].mean_us) best = i;
    }
    const double noise = noise_floor_pct(incumbent.mean_us, incumbent.stderr_us,
                                         stats[best].stderr_us, old_rule_sigmas);
    const GateDecision decision = gate_against_incumbent(
        Measured{Status::ok, incumbent.mean_us, incumbent.stderr_us},
        Measured{Status::ok, stats[best].mean_us, stats[best].stderr_us}, policy, noise);
    return decision.verdict == Verdict::promote ? static_cast<int>(best) : -1;
}

int promoted_by_paired_rule(const std::vector<RaceContender>& race, const PromotionPolicy& policy) {
    const RaceSummary summary = summarize_race(race, policy);
    const auto decision = gate_race(summary, policy);
    return decision && decision->verdict == Verdict::promote ? static_cast<int>(*summary.challenger)
                                                             : -1;
}

int promoted(Rule rule, const std::vector<RaceContender>& race, const PromotionPolicy& policy) {
    if (rule == Rule::old_unpaired) return promoted_by_old_rule(race, policy);
    PromotionPolicy paired = policy;
    paired.lower_bound_gate = rule == Rule::paired_lower_bound;
    return promoted_by_paired_rule(race, paired);
}

struct Rates {
    double false_promotion = 0.0;
    double power = 0.0;
};

// The same seeded draws for every rule of a cell, so that rules are compared on the same
// races.
Rates measure(const Cell& cell, Rule rule, int trials, std::uint64_t seed,
              const PromotionPolicy& policy, int finalists) {
    Normal normal(seed);
    const std::vector<double> all_equal(static_cast<std::size_t>(finalists), incumbent_us);
    std::vector<double> one_faster = all_equal;
    one_faster[0] = incumbent_us * (1.0 - true_win);
    int false_promotions = 0;
    int true_promotions = 0;
    for (int trial = 0; trial < trials; ++trial) {
        if (promoted(rule, simulate_race(cell, all_equal, normal), policy) >= 0) {
            ++false_promotions;
        }
        if (promoted(rule, simulate_race(cell, one_faster, normal), policy) == 1) {
            ++true_promotions;
        }
    }
    return {100.0 * false_promotions / trials, 100.0 * true_promotions / trials};
}

double half_width_pct(double rate_pct, int trials) {
    const double p = rate_pct / 100.0;
    return 100.0 * 1.96 * std::sqrt(std::max(p * (1.0 - p), 0.25 / trials) / trials);
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const int trials = argc > 1 ? std::atoi(argv[1]) : 10000;
        const std::uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
        if (trials < 1) throw fhmoe::Error("trials must be a positive number");
        TuningPolicy defaults = default_policy();
        if (argc > 3) defaults.promotion.false_promotion_rate = std::atof(argv[3]);
        validate(defaults);
        const PromotionPolicy& policy = defaults.promotion;
        const int finalists = defaults.finalist.finalists;
        std::printf(
            "decision_quality: %d trials per cell, seed %llu, %d finalists, min_improvement "
            "%.1f%%, "
            "false_promotion_rate %.3g, true win %.0f%%\n",
            trials, static_cast<unsigned long long>(seed), finalists, policy.min_improvement_pct,
            policy.false_promotion_rate, true_win * 100.0);
        std::printf("%-8s %-7s %-7s %-11s %22s %22s\n", "cv %", "common", "rounds", "rule",
                    "false promotion %", "power (5% win) %");
        double false_promotion_max = 0.0;
        double power_cv2 = 0.0;
        double power_cv5 = 0.0;
        std::uint64_t cell_seed = seed;
        for (const double common_share : {0.5, 0.0}) {
            for (const double cv : {0.01, 0.02, 0.05}) {
                for (const int rounds : {2, 5, 9}) {
                    const Cell cell{cv, common_share, rounds};
                    ++cell_seed;
                    for (const Rule rule :
                         {Rule::old_unpaired, Rule::paired, Rule::paired_lower_bound}) {
                        const Rates rates =
                            measure(cell, rule, trials, cell_seed * 7919, policy, finalists);
                        std::printf("%-8.0f %-7.1f %-7d %-11s %15.2f +-%4.2f %15.2f +-%4.2f\n",
                                    cv * 100.0, common_share, rounds, name_of(rule),
                                    rates.false_promotion,
                                    half_width_pct(rates.false_promotion, trials), rates.power,
                                    half_width_pct(rates.power, trials));
                        if (rule != Rule::paired) continue;
                        false_promotion_max = std::max(false_promotion_max, rates.false_promotion);
                        if (common_share == 0.5 && rounds == defaults.finalist.rounds) {
                            if (cv == 0.02) power_cv2 = rates.power;
                            if (cv == 0.05) power_cv5 = rates.power;
                        }
                    }
                }
            }
        }
        std::printf("false_promotion_max_pct=%.2f power5_cv2_pct=%.2f power5_cv5_pct=%.2f\n",
                    false_promotion_max, power_cv2, power_cv5);
        return 0;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "decision_quality: %s\n", error.what());
        return 1;
    }
}
