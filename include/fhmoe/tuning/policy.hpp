#pragma once

// Every default the tuner decides with (DESIGN.md section 3). No other file spells out a
// threshold: code reads these structs, and a family that needs a different value copies a
// struct and changes one field:
//
//     tuning::TuningPolicy policy = tuning::default_policy();
//     policy.measurement.err_ratio = 0.1;
//     tuning::validate(policy);

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/error.hpp"

namespace fhmoe::tuning {

struct MeasurementPolicy {
    int warmup = 5;           // --warmup: untimed runs before the timed ones
    int iters = 101;          // --iters: timed runs per candidate
    double err_ratio = 0.05;  // --errRatio: largest fraction of mismatching elements that passes
    double rtol = 1e-2;       // --rtol, --atol: isclose tolerances of the accuracy check
    double atol = 1e-2;       // (aiter checkAllclose)
    // Largest cosine distance between output and reference that passes. The element-wise
    // check alone lets a kernel that is right in most elements but wrong in direction pass;
    // 1e-3 is the bar aiter's production FHMoE tests use (reference section 6.3, step 7).
    double max_cosine_distance = 1e-3;  // --max_cosine_distance
    // --timeout: seconds one candidate may take, from launch to its last timed run. aiter's
    // 1800 s lets one hung worker cost half an hour (reference section 10.3). On a GPU the
    // slowest DSV4 candidate runs its warmup + 101 iterations in well under a second, and
    // the deadline is meant to cover the candidate only (not data generation, the
    // reference or worker start-up), so 60 s is generous for any real candidate while
    // bounding what a hang costs. The cpu backend on large shapes needs --timeout raised.
    double timeout_s = 60.0;
    // Time against rotating input buffers so inputs come cold from memory, as serving sees
    // them after other layers ran (aiter's run_perftest rotation). --rotate_inputs.
    bool rotate_inputs = true;
    // Time the op as a device graph replayed (captured once per input set, then launched
    // whole), as decode serving replays its graphs: at one token the launch gaps between the
    // op's kernels are a third of an eager run. --graph_replay=false times eager launches
    // (aiter's way). Backends without graphs (cpu, sim) run eagerly either way.
    bool graph_replay = true;
};

struct RunPolicy {
    int batch = 100;  // --batch: shapes decided between two writes of the tuned CSV
};

struct PromotionPolicy {
    // --min_improvement_pct: a challenger must be at least this much faster, in percent of
    // the incumbent's time. The gate and --compare --update_improved both read it.
    double min_improvement_pct = 3.0;
    // --false_promotion_rate: the gate's one-sided significance level, family-wise over the
    // looks and the finalists of a race. When no finalist is truly faster than the
    // incumbent, a race promotes one with probability at most this (a paired t test per
    // finalist per look at false_promotion_rate / looks / finalists, Bonferroni;
    // tuning/race.hpp). The noise floor of the bar is the t critical value of that test
    // times the standard error of the paired per-round log-ratios. bench/decision_quality
    // measures the rates the rule reaches.
    double false_promotion_rate = 0.01;
    // --lower_bound_gate: promote only when the lower confidence bound of the margin (margin
    // minus the noise floor) clears min_improvement_pct, so that a challenger whose true gain
    // is below min_improvement_pct is promoted with probability at most
    // false_promotion_rate too. Off by default: the default asks for a margin of
    // max(min_improvement_pct, noise floor), which keeps the power to see a true 5% win in
    // few rounds at the price of promoting gains right at min_improvement_pct most of the
    // time (50-80%; docs/performance.md).
    bool lower_bound_gate = false;
};

struct FinalistPolicy {
    int finalists = 4;  // --finalists: best candidates (relative to the incumbent) in the race
    // --rounds: the race's first batch of interleaved rounds, and every later batch; at least
    // 2 for a standard error. The race is analysed after each batch (a "look").
    int rounds = 5;
    // --max_rounds: the cap of the adaptive race. After each batch the race stops when its
    // confidence interval clears the bar (promote) or excludes it for every finalist
    // (retain); otherwise it runs another batch, up to max_rounds (the last look decides).
    // The false_promotion_rate is split evenly over the looks (tuning/race.hpp), so more
    // looks cost some power per look; 40 rounds (8 looks of 5) gives >= 95% power for a
    // true 5% win at a round CV of 2% and >= 80% at 5% (docs/performance.md), while a quiet
    // GPU still decides after the first 5. max_rounds == rounds is the fixed race of one look.
    int max_rounds = 40;
};

// --search: how many runs each candidate gets before the race (issue #16).
enum class SearchMode {
    // Every candidate gets the full measurement (warmup + iters), as aiter's tuners do.
    exhaustive,
    // Every candidate gets the checked run and a short screen (screen_warmup, then
    // screen_iters timed runs); only a candidate the screen cannot rule out gets the full
    // measurement and may become a finalist. tuning/screen.hpp states the prune rule.
    screen,
};

struct SearchPolicy {
    // screen by default: over 20 seeds of the DSV4 catalogue on the sim backend it publishes
    // what exhaustive publishes for about 1/9 of the chunks' timed runs, every chunk's
    // incumbent counted (bench/screen_quality, docs/performance.md); on an H200 7.4x the
    // candidates per hour. --search exhaustive is aiter's behaviour.
    SearchMode mode = SearchMode::screen;
    // --screen_warmup: untimed runs between the checked run and the screen's timed runs,
    // so the screen does not time a cold first launch.
    int screen_warmup = 2;
    // --screen_iters: the screen's timed runs; at least 2 for a spread. 8 runs of a 2%
    // spread bound a candidate's time within about 4% at the default error rate, which
    // rules out most of a DSV4 catalogue for 10 runs instead of 106 (docs/performance.md).
    int screen_iters = 8;
    // --screen_error_rate: the largest probability that the screen prunes a candidate whose
    // true time is at or below what its bound compares it with (split evenly over the two
    // bounds of tuning/screen.hpp, a one-sided Student t bound each).
    double screen_error_rate = 0.001;
};

struct TuningPolicy {
    MeasurementPolicy measurement;
    RunPolicy run;
    PromotionPolicy promotion;
    FinalistPolicy finalist;
    SearchPolicy search;
};

std::string_view to_string(SearchMode mode) noexcept;
// "screen" or "exhaustive"; none for any other text.
std::optional<SearchMode> search_mode_from_string(std::string_view text) noexcept;

TuningPolicy default_policy();

// One policy field, named as the tuner's CLI spells it (aiter's flag names; "rtol" and the
// other flagless fields by their own name), its value as a number (a switch is 1 or 0), and
// whether it changes what a candidate measures or how a decision is made. batch only paces
// the writes of the tuned CSV, so a resumed run may change it. `is_switch`: the value is a
// boolean (JSON writes it as true/false, not 1/0). `word`: the value as the CLI spells it when
// the flag takes a word rather than a number ("screen" for --search), else empty; messages
// that show a value to a person use it.
struct NamedPolicyValue {
    std::string name;
    double value = 0.0;
    bool changes_results = true;
    bool is_switch = false;
    std::string word = {};
};

// Every field of the policy, in a fixed order. The only list of policy names: the archive's
// /policy rows and the --resume fingerprint are both made from it, so a field added to a
// struct above and here reaches both.
std::vector<NamedPolicyValue> named_policy_values(const TuningPolicy& policy);

// A policy value that makes no sense. field() is the dotted field ("measurement.iters"),
// flag() the CLI flag that sets it ("--iters"), empty when it has none.
class PolicyError : public Error {
public:
    PolicyError(std::string field, std::string flag, const std::string& reason);
    const std::string& field() const noexcept { return field_; }
    const std::string& flag() const noexcept { return flag_; }

private:
    std::string field_;
    std::string flag_;
};

// Throws PolicyError for the first nonsensical value: iters < 1, warmup < 0, err_ratio
// outside [0, 1], negative rtol/atol, a non-positive timeout, batch < 1, a negative or
// non-finite min_improvement_pct, a false_promotion_rate outside (0, 0.5], finalists < 1,
// rounds < 2, max_rounds < rounds, screen_warmup < 0, screen_iters < 2, a screen_error_rate
// outside (0, 0.5].
void validate(const TuningPolicy& policy);

}  // namespace fhmoe::tuning
