// decision_quality: how often the race gate decides wrong, and how many rounds it spends,
// measured by a seeded Monte Carlo through the tuning library's own functions
// (summarize_samples, noise_floor_pct, gate_against_incumbent for the rule before paired
// rounds; summarize_race, gate_race, race_needs_more_rounds for the paired rules). A table
// for people; with --check, also the CI test of issue #14's targets.
//
//   decision_quality [--trials N] [--seed S] [--false_promotion_rate R] [--max_rounds M]
//                    [--check]
//   (defaults: 10000 trials per cell, seed 1, the default policy's rate and cap)
//
// One simulated race: the incumbent (true time 100 us) and `finalists` finalists run in
// interleaved rounds. A contender's round mean is its true time times exp(common_r + own_r):
// common_r ~ N(0, s_c^2) is shared by every contender of round r (a neighbour's load, a
// clock step), own_r ~ N(0, s_o^2) is the contender's own. The round CV is
// sqrt(s_c^2 + s_o^2); "common" is the share s_c^2 / CV^2 of that variance.
//
//   effect 0        every finalist as fast as the incumbent: the rate of any promotion (a
//                   false promotion)
//   effect 3/5/10   one finalist truly that many percent faster, the others as fast as the
//                   incumbent: the rate at which that one is promoted (power; at 3%, the
//                   min_improvement_pct itself, the default gate promotes about half)
//
// Rules, all on the same simulated races of a cell:
//   old         the rule before paired rounds: the fastest mean, a noise floor of 2 combined
//               standard errors of the two means, 5 rounds
//   paired      the paired, Bonferroni-corrected t test at a fixed 5 rounds (one look)
//   adaptive    the default: batches of 5 rounds up to max_rounds, the rate split over looks
//   adaptive+lcb  the same with --lower_bound_gate
// One line per cell, the rules side by side; rates carry a 95% binomial interval half-width,
// mean rounds a 95% normal half-width.
// The last line is for scripts:
//   false_promotion_max_pct=X power5_cv2_pct=Y power5_cv5_pct=Z
// X is the worst false-promotion rate of the default rule (adaptive) over the grid; Y and Z
// its power for a true 5% win at round CV 2% and 5%, common share 0.5, the policy's 4
// finalists.
//
// --check runs a small grid (round CV 0.5, 1, 2, 5%, common share 0.5, the default 4
// finalists, 1000 trials) and exits 1 unless issue #14's targets hold for the default rule:
// false promotions <= 1% at every CV, power >= 95% for a true 5% win at CV <= 2% and >= 80%
// at CV 5%. Seeded, so it prints the same numbers on every run.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/gate.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/tuning/race.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace {

using namespace fhmoe::tuning;

constexpr double incumbent_us = 100.0;
constexpr double old_rule_sigmas = 2.0;
constexpr int fixed_rounds = 5;
// Issue #14's targets ("Must show"), which --check asserts.
constexpr double target_false_promotion_pct = 1.0;
constexpr double target_power_quiet_pct = 95.0;  // true 5% win, round CV <= 2%
constexpr double target_power_noisy_pct = 80.0;  // true 5% win, round CV 5%
// --check's trials per cell: at the targets' rates the 95% intervals are about +-0.6 points
// (false promotions near 1%) and +-1.4 (power near 95%), and the rule clears them by more.
constexpr int check_trials = 1000;

enum class Rule { old_unpaired, paired_fixed, adaptive, adaptive_lower_bound };

const char* name_of(Rule rule) {
    switch (rule) {
        case Rule::old_unpaired: return "old";
        case Rule::paired_fixed: return "paired";
        case Rule::adaptive: return "adaptive";
        case Rule::adaptive_lower_bound: return "adaptive+lcb";
    }
    return "?";
}

bool is_adaptive(Rule rule) { return rule == Rule::adaptive || rule == Rule::adaptive_lower_bound; }

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
    int finalists = 0;
    double effect = 0.0;  // how much faster finalist 1 truly is (0: none is)
};

// Contender 0 is the incumbent, 1..finalists the finalists; `rounds` rounds each.
std::vector<RaceContender> simulate_race(const Cell& cell, int rounds, Normal& normal) {
    const double common_sd = cell.cv * std::sqrt(cell.common_share);
    const double own_sd = cell.cv * std::sqrt(1.0 - cell.common_share);
    std::vector<RaceContender> race(static_cast<std::size_t>(cell.finalists) + 1);
    race[0].candidate = CandidateId{32, "incumbent", "s2"};
    race[0].is_incumbent = true;
    std::vector<double> true_us(race.size(), incumbent_us);
    true_us[1] = incumbent_us * (1.0 - cell.effect);
    for (std::size_t i = 1; i < race.size(); ++i) {
        race[i].candidate = CandidateId{64, "finalist" + std::to_string(i), "s2"};
    }
    for (int round = 0; round < rounds; ++round) {
        const double common = common_sd * normal();
        for (std::size_t i = 0; i < race.size(); ++i) {
            race[i].round_means_us.push_back(true_us[i] * std::exp(common + own_sd * normal()));
        }
    }
    return race;
}

std::vector<RaceContender> first_rounds(const std::vector<RaceContender>& race,
                                        std::size_t rounds) {
    std::vector<RaceContender> prefix = race;
    for (RaceContender& contender : prefix) contender.round_means_us.resize(rounds);
    return prefix;
}

struct Outcome {
    int promoted = -1;  // index of the promoted contender, -1 for none
    std::size_t rounds = 0;
};

Outcome old_rule(const std::vector<RaceContender>& full, const PromotionPolicy& policy) {
    const std::vector<RaceContender> race = first_rounds(full, fixed_rounds);
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
    return {decision.verdict == Verdict::promote ? static_cast<int>(best) : -1, fixed_rounds};
}

// The race as the tuner runs it: analysed at each look on the rounds run so far, stopped at
// the first look that decides.
Outcome sequential_rule(const std::vector<RaceContender>& full, const PromotionPolicy& policy,
                        const std::vector<std::size_t>& looks) {
    for (const std::size_t rounds : looks) {
        const RaceSummary summary = summarize_race(first_rounds(full, rounds), policy, looks);
        if (race_needs_more_rounds(summary, policy)) continue;
        const auto decision = gate_race(summary, policy);
        const bool promote = decision && decision->verdict == Verdict::promote;
        return {promote ? static_cast<int>(*summary.challenger) : -1, rounds};
    }
    throw fhmoe::InternalError("the last look asked for more rounds");
}

struct Tally {
    int trials = 0;
    int hits = 0;  // false promotions (effect 0) or promotions of the faster finalist
    double rounds_sum = 0.0;
    double rounds_squares = 0.0;

    double rate_pct() const { return 100.0 * hits / trials; }
    double rate_half_width_pct() const {
        const double p = static_cast<double>(hits) / trials;
        return 100.0 * 1.96 * std::sqrt(std::max(p * (1.0 - p), 0.25 / trials) / trials);
    }
    double mean_rounds() const { return rounds_sum / trials; }
    double rounds_half_width() const {
        const double mean = mean_rounds();
        const double variance = std::max(0.0, rounds_squares / trials - mean * mean);
        return 1.96 * std::sqrt(variance / trials);
    }
};

struct Settings {
    int trials = 10000;
    std::uint64_t seed = 1;
    TuningPolicy policy = default_policy();
    bool check = false;
};

const std::vector<Rule> all_rules = {Rule::old_unpaired, Rule::paired_fixed, Rule::adaptive,
                                     Rule::adaptive_lower_bound};

// One tally per rule, all rules on the same seeded races.
std::vector<Tally> measure(const Cell& cell, const Settings& settings, std::uint64_t seed,
                           const std::vector<Rule>& rules) {
    Normal normal(seed);
    PromotionPolicy lower_bound = settings.policy.promotion;
    lower_bound.lower_bound_gate = true;
    FinalistPolicy fixed = settings.policy.finalist;
    fixed.rounds = fixed_rounds;
    fixed.max_rounds = fixed_rounds;
    const std::vector<std::size_t> one_look = race_looks(fixed);
    const std::vector<std::size_t> looks = race_looks(settings.policy.finalist);
    std::vector<Tally> tallies(rules.size());
    for (int trial = 0; trial < settings.trials; ++trial) {
        const std::vector<RaceContender> race =
            simulate_race(cell, static_cast<int>(looks.back()), normal);
        for (std::size_t r = 0; r < rules.size(); ++r) {
            Outcome outcome;
            switch (rules[r]) {
                case Rule::old_unpaired: outcome = old_rule(race, settings.policy.promotion); break;
                case Rule::paired_fixed:
                    outcome = sequential_rule(race, settings.policy.promotion, one_look);
                    break;
                case Rule::adaptive:
                    outcome = sequential_rule(race, settings.policy.promotion, looks);
                    break;
                case Rule::adaptive_lower_bound:
                    outcome = sequential_rule(race, lower_bound, looks);
                    break;
            }
            Tally& tally = tallies[r];
            ++tally.trials;
            const bool hit = cell.effect == 0.0 ? outcome.promoted >= 0 : outcome.promoted == 1;
            if (hit) ++tally.hits;
            const auto rounds = static_cast<double>(outcome.rounds);
            tally.rounds_sum += rounds;
            tally.rounds_squares += rounds * rounds;
        }
    }
    return tallies;
}

// A bad command line: exit 2, like the tuner's.
struct BadArgument : std::runtime_error {
    using std::runtime_error::runtime_error;
};

[[noreturn]] void usage(const std::string& why) {
    throw BadArgument(why +
                      "; usage: decision_quality [--trials N] [--seed S] "
                      "[--false_promotion_rate R] [--max_rounds M] [--check]");
}

Settings parse(int argc, char** argv) {
    Settings settings;
    bool trials_given = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (flag == "--check") {
            settings.check = true;
            continue;
        }
        if (i + 1 >= argc) usage(std::string(flag) + " needs a value");
        const char* value = argv[++i];
        char* end = nullptr;
        if (flag == "--trials") {
            settings.trials = static_cast<int>(std::strtol(value, &end, 10));
            if (*end != '\0' || settings.trials < 1) usage("--trials must be a positive integer");
            trials_given = true;
        } else if (flag == "--seed") {
            settings.seed = std::strtoull(value, &end, 10);
            if (*end != '\0') usage("--seed must be an unsigned integer");
        } else if (flag == "--false_promotion_rate") {
            settings.policy.promotion.false_promotion_rate = std::strtod(value, &end);
            if (*end != '\0') usage("--false_promotion_rate must be a number");
        } else if (flag == "--max_rounds") {
            settings.policy.finalist.max_rounds = static_cast<int>(std::strtol(value, &end, 10));
            if (*end != '\0') usage("--max_rounds must be an integer");
        } else {
            usage("unknown argument " + std::string(flag));
        }
    }
    if (settings.check && !trials_given) settings.trials = check_trials;
    // A bad value names its flag (PolicyError), as fhmoe_tune_mpi's would.
    validate(settings.policy);
    return settings;
}

struct Headline {
    double false_promotion_max = 0.0;
    double power_cv2 = 0.0;
    double power_cv5 = 0.0;
    bool check_failed = false;
};

}  // namespace

int main(int argc, char** argv) {
    try {
        const Settings settings = parse(argc, argv);
        const PromotionPolicy& policy = settings.policy.promotion;
        const FinalistPolicy& finalist = settings.policy.finalist;
        std::printf(
            "decision_quality: %d trials per cell, seed %llu, min_improvement %.1f%%, "
            "false_promotion_rate %.3g, adaptive rounds %d per look up to %d (%zu looks)%s\n",
            settings.trials, static_cast<unsigned long long>(settings.seed),
            policy.min_improvement_pct, policy.false_promotion_rate, finalist.rounds,
            finalist.max_rounds, race_looks(finalist).size(), settings.check ? ", --check" : "");
        const std::vector<double> common_shares =
            settings.check ? std::vector<double>{0.5} : std::vector<double>{0.5, 0.0};
        const std::vector<int> finalist_counts =
            settings.check ? std::vector<int>{finalist.finalists} : std::vector<int>{1, 4};
        const std::vector<double> effects = settings.check
                                                ? std::vector<double>{0.0, 0.05}
                                                : std::vector<double>{0, 0.03, 0.05, 0.1};
        const std::vector<Rule> rules =
            settings.check ? std::vector<Rule>{Rule::adaptive} : all_rules;
        // One line per cell, the rules side by side: promoted % and, for the adaptive rules,
        // mean rounds, each +- its 95% half-width.
        std::printf("%-5s %-6s %-3s %-6s", "cv%", "common", "fin", "effect");
        for (const Rule rule : rules) {
            std::printf(" | %-13s", name_of(rule));
            if (is_adaptive(rule)) std::printf(" %-10s", "rounds");
        }
        std::printf("\n");

        Headline headline;
        std::uint64_t cell_seed = settings.seed;
        for (const double common_share : common_shares) {
            for (const int finalists : finalist_counts) {
                for (const double cv : {0.005, 0.01, 0.02, 0.05}) {
                    for (const double effect : effects) {
                        const Cell cell{cv, common_share, finalists, effect};
                        ++cell_seed;
                        const std::vector<Tally> tallies =
                            measure(cell, settings, cell_seed * 7919, rules);
                        std::printf("%-5.1f %-6.1f %-3d %-6.0f", cv * 100.0, common_share,
                                    finalists, effect * 100.0);
                        for (std::size_t r = 0; r < rules.size(); ++r) {
                            const Tally& tally = tallies[r];
                            std::printf(" | %6.2f +-%4.2f", tally.rate_pct(),
                                        tally.rate_half_width_pct());
                            if (is_adaptive(rules[r])) {
                                std::printf(" %4.1f +-%3.1f", tally.mean_rounds(),
                                            tally.rounds_half_width());
                            }
                            if (rules[r] != Rule::adaptive) continue;
                            if (effect == 0.0) {
                                headline.false_promotion_max =
                                    std::max(headline.false_promotion_max, tally.rate_pct());
                                if (tally.rate_pct() > target_false_promotion_pct) {
                                    headline.check_failed = true;
                                }
                            }
                            if (effect == 0.05 && common_share == 0.5 &&
                                finalists == finalist.finalists) {
                                if (cv == 0.02) headline.power_cv2 = tally.rate_pct();
                                if (cv == 0.05) headline.power_cv5 = tally.rate_pct();
                                const double target =
                                    cv <= 0.02 ? target_power_quiet_pct : target_power_noisy_pct;
                                if (tally.rate_pct() < target) headline.check_failed = true;
                            }
                        }
                        std::printf("\n");
                        std::fflush(stdout);
                    }
                }
            }
        }
        std::printf("false_promotion_max_pct=%.2f power5_cv2_pct=%.2f power5_cv5_pct=%.2f\n",
                    headline.false_promotion_max, headline.power_cv2, headline.power_cv5);
        if (settings.check && headline.check_failed) {
            std::fprintf(stderr,
                         "decision_quality: issue #14's targets not met (false promotions <= 1%%, "
                         "power for a 5%% win >= 95%% at CV <= 2%%, >= 80%% at CV 5%%)\n");
            return 1;
        }
        return 0;
    } catch (const BadArgument& error) {
        std::fprintf(stderr, "decision_quality: %s\n", error.what());
        return 2;
    } catch (const PolicyError& error) {
        std::fprintf(stderr, "decision_quality: %s\n", error.what());
        return 2;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "decision_quality: %s\n", error.what());
        return 1;
    }
}
