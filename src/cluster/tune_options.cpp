#include "fhmoe/cluster/tune_options.hpp"

#include <cxxopts.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fhmoe/family/fhmoe_policy.hpp"
#include "fhmoe/text_excerpt.hpp"
#include "fhmoe/worker/fault_spec.hpp"

namespace fhmoe::cluster {
namespace {

// A default as --help shows it and cxxopts parses it back: the shortest text that reads back
// as the same double (0.1, 0.001, 1e-07), so a tiny default never prints as 0.
template <typename T>
std::string text(T value) {
    if constexpr (std::is_same_v<T, double>) {
        char buffer[32];
        const auto written = std::to_chars(buffer, buffer + sizeof(buffer), value);
        return std::string(buffer, written.ptr);
    } else {
        return std::to_string(value);
    }
}

cxxopts::Options make_options(const tuning::TuningPolicy& defaults) {
    cxxopts::Options options(
        "fhmoe_tune_mpi",
        "MPI-distributed batch tuner of the FHMoE kernel family.\n"
        "  mpirun -np N fhmoe_tune_mpi -i untuned.csv -o tuned.csv [options]\n"
        "  srun fhmoe_tune_mpi -i untuned.csv -o tuned.csv [options]\n"
        "Rank 0 plans, every rank (rank 0 too) measures through its own worker process,\n"
        "rank 0 journals every result, races the finalists of each complete shape, gates the\n"
        "best challenger against the incumbent, and writes the tuned CSV with the published\n"
        "one (the best challenger if promoted, else the incumbent).\n"
        "Rows carry the device they were tuned on: gfx/cu_num of the GPU; 'cpu' and the host's\n"
        "hardware threads for --backend cpu; 'sim' and 1 for --backend sim.\n"
        "Exit codes: 0 every shape decided, 1 some shape incomplete or all candidates failed,\n"
        "2 bad input (nothing written), 3 interrupted (resume with --resume), 4 not in this "
        "build, 5 a requested output (--evidence, --summary-json) could not be written.");
    const auto& m = defaults.measurement;
    options.add_options("files")("i,untune_file", "untuned shapes CSV (the shapes to tune)",
                                 cxxopts::value<std::string>())(
        "o,tune_file", "tuned CSV: read for incumbents, merged atomically under its lock",
        cxxopts::value<std::string>())(
        "journal", "append-only run journal (default: <tune_file>.journal)",
        cxxopts::value<std::string>())("resume",
                                       "continue the run recorded in --journal: re-measure only "
                                       "what is missing (the run fingerprint must match)")(
        "evidence", "HDF5 evidence archive to write at checkpoints and at the end",
        cxxopts::value<std::string>())(
        "summary-json",
        "also write the end-of-run summary as JSON: exit_code, ranks, policy, and per shape "
        "its decision, candidates by status, race samples, published, incumbent, best "
        "challenger, margin",
        cxxopts::value<std::string>());
    options.add_options("selection")(
        "all", "retune shapes that already have a tuned row for this gfx/cu_num (aiter --all)")(
        "candidate-sample",
        "measure a seeded sample of N candidates per shape (the default "
        "config always included) instead of the whole catalogue",
        cxxopts::value<std::string>())("seed",
                                       "seed of the candidate sample and of every shape's data",
                                       cxxopts::value<std::string>()->default_value("0"));
    options.add_options("measurement")(
        "warmup", "untimed runs before the timed ones",
        cxxopts::value<std::string>()->default_value(text(m.warmup)))(
        "iters", "timed runs per candidate (and per race round)",
        cxxopts::value<std::string>()->default_value(text(m.iters)))(
        "errRatio", "largest fraction of mismatching output elements that passes",
        cxxopts::value<std::string>()->default_value(text(m.err_ratio)))(
        "timeout", "seconds one candidate may take before its worker is killed",
        cxxopts::value<std::string>()->default_value(text(m.timeout_s)))(
        "rtol", "relative tolerance of the element-wise accuracy check",
        cxxopts::value<std::string>()->default_value(text(m.rtol)))(
        "atol", "absolute tolerance of the element-wise accuracy check",
        cxxopts::value<std::string>()->default_value(text(m.atol)))(
        "max_cosine_distance", "largest cosine distance between output and reference that passes",
        cxxopts::value<std::string>()->default_value(text(m.max_cosine_distance)))(
        "rotate_inputs",
        "time against rotating input copies so inputs come cold from memory "
        "(--rotate_inputs=false turns it off)",
        cxxopts::value<std::string>()
            ->default_value(m.rotate_inputs ? "true" : "false")
            ->implicit_value("true"))(
        "graph_replay",
        "time the op replayed as a device graph, as decode serving runs it "
        "(--graph_replay=false times eager launches; cpu and sim always run eagerly)",
        cxxopts::value<std::string>()
            ->default_value(m.graph_replay ? "true" : "false")
            ->implicit_value("true"))("backend", "cpu | gpu | sim",
                                      cxxopts::value<std::string>()->default_value("cpu"))(
        "worker", "fhmoe_worker executable (default: next to fhmoe_tune_mpi)",
        cxxopts::value<std::string>())(
        "inject-fault", "faults for the workers (tests), e.g. crash@3,hang@7,genfail!@0",
        cxxopts::value<std::string>()->default_value(""));
    const tuning::SearchPolicy& search = defaults.search;
    options.add_options("search")(
        "search",
        "exhaustive: every candidate gets the full measurement (--warmup, --iters), as aiter's "
        "tuners do; screen: every candidate gets the checked run and a short screen "
        "(--screen_warmup, --screen_iters), and only one the screen cannot rule out against the "
        "chunk's incumbent (by the promotion bar) or its best fully measured candidate gets the "
        "full measurement and may reach the race; a pruned candidate is status ok with its "
        "screen timing and the bound that pruned it; its default chunks are larger (--chunk) "
        "(docs/operations.md)",
        cxxopts::value<std::string>()->default_value(std::string(tuning::to_string(search.mode))))(
        "screen_warmup", "--search screen: untimed runs before the screen's timed runs",
        cxxopts::value<std::string>()->default_value(text(search.screen_warmup)))(
        "screen_iters", "--search screen: the screen's timed runs (>= 2)",
        cxxopts::value<std::string>()->default_value(text(search.screen_iters)))(
        "screen_error_rate",
        "--search screen: largest probability that the screen prunes a candidate whose true "
        "time is at or below what it is compared with (one-sided t bounds, split over the two)",
        cxxopts::value<std::string>()->default_value(text(search.screen_error_rate)));
    options.add_options("decision")(
        "min_improvement_pct", "a challenger must beat the incumbent by at least this percent",
        cxxopts::value<std::string>()->default_value(text(defaults.promotion.min_improvement_pct)))(
        "finalists", "best candidates (relative to the incumbent) that reach the race",
        cxxopts::value<std::string>()->default_value(text(defaults.finalist.finalists)))(
        "rounds",
        "interleaved race rounds (>= 2) of the race's first batch and of every later one "
        "(see --max_rounds); a quiet device decides after the first batch",
        cxxopts::value<std::string>()->default_value(text(defaults.finalist.rounds)))(
        "max_rounds",
        "cap of the adaptive race (>= --rounds): after every --rounds rounds the race stops "
        "once its confidence interval clears or excludes the bar, else runs another batch; "
        "the false_promotion_rate is split over the looks. At the default 40 a true 5% win "
        "is promoted >= 95% of the time at a round CV of 2% and >= 80% at 5%; "
        "--max_rounds = --rounds is the fixed race (docs/performance.md)",
        cxxopts::value<std::string>()->default_value(text(defaults.finalist.max_rounds)))(
        "false_promotion_rate",
        "the gate's one-sided error rate: when no finalist is truly faster than the incumbent, "
        "a race promotes one with at most this probability (paired t test of the per-round "
        "log-ratios, t quantile for the rounds run, level split evenly over the race's "
        "looks and its finalists); "
        "bench/decision_quality measures it (docs/performance.md)",
        cxxopts::value<std::string>()->default_value(
            text(defaults.promotion.false_promotion_rate)))(
        "lower_bound_gate",
        "promote only when margin - noise floor >= min_improvement_pct (a gain below "
        "min_improvement_pct is then promoted at most at the false_promotion_rate); default: "
        "margin >= max(min_improvement_pct, noise floor)",
        cxxopts::value<std::string>()
            ->default_value(defaults.promotion.lower_bound_gate ? "true" : "false")
            ->implicit_value("true"));
    options.add_options("run")(
        "batch", "decided shapes between two writes of the tuned CSV",
        cxxopts::value<std::string>()->default_value(text(defaults.run.batch)))(
        "chunk",
        "candidates per chunk, each chunk also measuring the incumbent in full (default: about 3 "
        "chunks per rank, within 4..64 candidates for --search exhaustive and, for --search "
        "screen, that many full measurements' worth of screens: 36..576 at the default runs, "
        "so the incumbent stays under ~2% of the runs of a full-size chunk)",
        cxxopts::value<std::string>())(
        "compare", "replay each decided shape end to end before (incumbent) and after (new row)")(
        "update_improved", "with --compare: write only the rows that improved by the gate's bar")(
        "run_config",
        "replay tuned rows end to end and exit: the rows of CSV, or (bare) the "
        "shapes of -i as serving looks them up in -o",
        cxxopts::value<std::string>()->implicit_value(""))(
        "lock-timeout", "seconds to wait for the tuned CSV's lock",
        cxxopts::value<std::string>()->default_value("120"))(
        "stop-grace", "seconds an in-flight candidate may finish after SIGTERM/SIGINT/SIGUSR1",
        cxxopts::value<std::string>()->default_value("5"))(
        "status-interval", "seconds between progress lines (--progress lines)",
        cxxopts::value<std::string>()->default_value("30"))(
        "progress",
        "auto | bar | lines | none: a bar redrawn in place on the terminal (with the log lines "
        "above it), a line every --status-interval, or nothing; auto: bar when rank 0 reaches "
        "the user's terminal (its stderr, or under mpirun mpirun's), lines otherwise (srun, a "
        "redirected log)",
        cxxopts::value<std::string>()->default_value("auto"))(
        "v,verbose", "more logging; ranks other than 0 log too")("h,help", "print this help")(
        "version", "print the version and exit");
    // aiter's flags that mean something else here (reference section 4.1): --mp is accepted
    // when it says what the launch already does, --sort always holds; --profile_file / -o2
    // are refused before parsing (refuse_profile_file) with what to use instead.
    options.add_options("aiter")(
        "mp",
        "aiter's worker-process count: here one worker per MPI rank, one rank per GPU; "
        "accepted when N equals the rank count (launch N ranks with mpirun -np N / srun -n N)",
        cxxopts::value<std::string>())(
        "sort", "aiter's sorted output: the tuned CSV is always written sorted by its keys");
    return options;
}

// Every value is declared to cxxopts as text and converted here: cxxopts' own conversion
// error names only the value ("Argument 'abc' failed to parse"), and the user must be told
// which flag it was. The value is quoted as an excerpt: a flag value can be megabytes long.
[[noreturn]] void bad_value(const std::string& flag, const std::string& text, const char* wanted) {
    throw UsageError(flag + ": '" + excerpt(text) + "' is not " + wanted);
}

template <typename T>
T integer_value(const std::string& flag, const std::string& text, const char* wanted) {
    T value{};
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || stop != end) bad_value(flag, text, wanted);
    return value;
}

class FlagValues {
public:
    explicit FlagValues(const cxxopts::ParseResult& result) : result_(result) {}

    bool given(const std::string& name) const { return result_.count(name) != 0; }
    std::string text(const std::string& name) const { return result_[name].as<std::string>(); }

    int integer(const std::string& name) const {
        return integer_value<int>("--" + name, text(name), "an integer");
    }
    // from_chars reads no sign for unsigned types, so "-1" is refused rather than wrapped.
    std::uint64_t count(const std::string& name) const {
        return integer_value<std::uint64_t>("--" + name, text(name), "a non-negative integer");
    }
    double number(const std::string& name) const {
        const std::string value = text(name);
        double parsed = 0.0;
        const char* end = value.data() + value.size();
        const auto [stop, error] = std::from_chars(value.data(), end, parsed);
        if (value.empty() || error != std::errc() || stop != end || !std::isfinite(parsed)) {
            bad_value("--" + name, value, "a finite number");
        }
        return parsed;
    }
    bool boolean(const std::string& name) const {
        const std::string value = text(name);
        if (value == "true" || value == "yes" || value == "1") return true;
        if (value == "false" || value == "no" || value == "0") return false;
        bad_value("--" + name, value, "true or false");
    }

private:
    const cxxopts::ParseResult& result_;
};

// --run_config replays rows and exits: a flag that asks for something only a tuning run does
// would be silently ignored, so it is refused, naming both.
void refuse_with_run_config(const FlagValues& flags) {
    for (const char* name :
         {"compare", "update_improved", "all", "resume", "evidence", "summary-json"}) {
        if (flags.given(name)) {
            throw UsageError(std::string("--run_config and --") + name +
                             " conflict: --run_config only replays tuned rows (it tunes, "
                             "journals and archives nothing)");
        }
    }
}

// cxxopts matches every argument against std::regex, which recurses once per character: an
// argument of a few hundred kilobytes overflows the stack. Nothing legitimate is this long
// (a path is at most 4096 bytes), so a longer argument is refused before cxxopts sees it.
constexpr std::size_t kMaxArgumentBytes = 16 * 1024;

void refuse_overlong_arguments(const std::vector<std::string>& args) {
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg.size() <= kMaxArgumentBytes) continue;
        std::string flag = "argument " + std::to_string(i);
        std::string_view value = arg;
        const std::size_t equals = arg.find('=');
        if (arg.starts_with("-") && equals != std::string::npos && equals <= kExcerptChars) {
            flag = arg.substr(0, equals);
            value.remove_prefix(equals + 1);
        } else if (!arg.starts_with("-") && args[i - 1].starts_with("-") &&
                   args[i - 1].size() <= kExcerptChars) {
            flag = args[i - 1];
        }
        throw UsageError(flag + ": '" + excerpt(value) + "' is longer than " +
                         std::to_string(kMaxArgumentBytes) + " bytes");
    }
}

// aiter's -o2/--profile_file dumps every candidate's result to a CSV. Here every candidate is
// in the evidence archive, which exports as CSV; cxxopts would read "-o2" as -o with the
// value "2", so it is refused before cxxopts sees it.
void refuse_profile_file(const std::vector<std::string>& args) {
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "-o2" || arg.starts_with("-o2=") || arg == "--profile_file" ||
            arg.starts_with("--profile_file=")) {
            throw UsageError(
                "-o2/--profile_file (aiter's dump of every candidate) is not a flag of "
                "fhmoe_tune_mpi: every candidate's result is in the evidence archive; use "
                "--evidence RUN.h5, then 'fhmoe_evidence export RUN.h5 --csv DIR' "
                "(DIR/candidates.csv)");
        }
    }
}

std::string require_path(const cxxopts::ParseResult& result, const char* name, const char* flag) {
    if (result.count(name) == 0 || result[name].as<std::string>().empty()) {
        throw UsageError(std::string(flag) + " is required");
    }
    return result[name].as<std::string>();
}

}  // namespace

std::string default_worker_path() {
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) return "fhmoe_worker";
    return (self.parent_path() / "fhmoe_worker").string();
}

ParsedCommandLine parse_tune_command_line(const std::vector<std::string>& args) {
    const tuning::TuningPolicy defaults = family::fhmoe_tuning_policy();
    cxxopts::Options options = make_options(defaults);
    ParsedCommandLine parsed;
    parsed.help_text = options.help();

    refuse_overlong_arguments(args);
    refuse_profile_file(args);

    // aiter's --run_config is argparse nargs='?': a following word that is not a flag is its
    // CSV. cxxopts only takes `--run_config=CSV` for an implicit value, so join the two.
    std::vector<std::string> joined;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--run_config" && i + 1 < args.size() && !args[i + 1].empty() &&
            args[i + 1][0] != '-') {
            joined.push_back("--run_config=" + args[++i]);
        } else {
            joined.push_back(args[i]);
        }
    }
    std::vector<const char*> argv;
    for (const auto& arg : joined) argv.push_back(arg.c_str());
    if (argv.empty()) argv.push_back("fhmoe_tune_mpi");

    TuneOptions o;
    o.command_line = args;
    try {
        const auto result = options.parse(static_cast<int>(argv.size()), argv.data());
        if (result.count("help") != 0) return parsed;
        if (result.count("version") != 0) {
            parsed.show_version = true;
            return parsed;
        }
        if (!result.unmatched().empty()) {
            throw UsageError("unexpected argument '" + excerpt(result.unmatched().front()) + "'");
        }
        const FlagValues flags(result);
        if (flags.given("mp")) {
            o.mp = flags.integer("mp");
            if (*o.mp < 1) throw UsageError("--mp must be >= 1");
        }
        o.retune_all = flags.given("all");
        o.compare = flags.given("compare");
        o.update_improved = flags.given("update_improved");
        if (flags.given("run_config")) {
            o.run_config = flags.text("run_config");
            refuse_with_run_config(flags);
        }
        if (o.update_improved && !o.compare) {
            throw UsageError("--update_improved requires --compare (as in aiter)");
        }
        const bool run_config_from_csv = o.run_config.has_value() && !o.run_config->empty();
        if (!run_config_from_csv) {
            o.untuned_path = require_path(result, "untune_file", "-i/--untune_file");
            o.tuned_path = require_path(result, "tune_file", "-o/--tune_file");
        } else {
            if (flags.given("untune_file")) o.untuned_path = flags.text("untune_file");
            if (flags.given("tune_file")) o.tuned_path = flags.text("tune_file");
        }

        auto& policy = o.policy;
        policy = defaults;
        policy.measurement.warmup = flags.integer("warmup");
        policy.measurement.iters = flags.integer("iters");
        policy.measurement.err_ratio = flags.number("errRatio");
        policy.measurement.timeout_s = flags.number("timeout");
        policy.measurement.rtol = flags.number("rtol");
        policy.measurement.atol = flags.number("atol");
        policy.measurement.max_cosine_distance = flags.number("max_cosine_distance");
        policy.measurement.rotate_inputs = flags.boolean("rotate_inputs");
        policy.measurement.graph_replay = flags.boolean("graph_replay");
        policy.promotion.false_promotion_rate = flags.number("false_promotion_rate");
        policy.promotion.lower_bound_gate = flags.boolean("lower_bound_gate");
        policy.run.batch = flags.integer("batch");
        policy.promotion.min_improvement_pct = flags.number("min_improvement_pct");
        policy.finalist.finalists = flags.integer("finalists");
        policy.finalist.rounds = flags.integer("rounds");
        policy.finalist.max_rounds = flags.integer("max_rounds");
        const auto search_mode = tuning::search_mode_from_string(flags.text("search"));
        if (!search_mode) bad_value("--search", flags.text("search"), "screen or exhaustive");
        policy.search.mode = *search_mode;
        policy.search.screen_warmup = flags.integer("screen_warmup");
        policy.search.screen_iters = flags.integer("screen_iters");
        policy.search.screen_error_rate = flags.number("screen_error_rate");
        try {
            tuning::validate(policy);
        } catch (const tuning::PolicyError& error) {
            throw UsageError((error.flag().empty() ? error.field() : error.flag()) + ": " +
                             error.what());
        }

        if (flags.given("candidate-sample")) {
            o.candidate_sample = flags.count("candidate-sample");
            if (*o.candidate_sample == 0) throw UsageError("--candidate-sample must be >= 1");
        }
        o.seed = flags.count("seed");
        try {
            o.backend = worker::parse_backend_kind(flags.text("backend"), "--backend");
        } catch (const InputError& error) {
            throw UsageError(error.field() + " " + error.reason());  // "(see --help)" follows
        }
        o.resume = flags.given("resume");
        if (flags.given("journal")) o.journal_path = flags.text("journal");
        if (o.journal_path.empty() && !o.tuned_path.empty())
            o.journal_path = o.tuned_path + ".journal";
        if (flags.given("evidence")) o.evidence_path = flags.text("evidence");
        if (flags.given("summary-json")) o.summary_json_path = flags.text("summary-json");
        if (flags.given("chunk")) {
            o.chunk_size = flags.count("chunk");
            if (*o.chunk_size == 0) throw UsageError("--chunk must be >= 1");
        }
        o.inject_fault = flags.text("inject-fault");
        try {
            (void)worker::FaultPlan::parse(o.inject_fault);
        } catch (const ParseError& error) {
            throw UsageError(std::string("--inject-fault: ") + error.what());
        }
        o.verbose = flags.given("verbose");
        o.worker_path = flags.given("worker") ? flags.text("worker") : default_worker_path();
        o.lock_timeout_s = flags.number("lock-timeout");
        o.stop_grace_s = flags.number("stop-grace");
        o.status_interval_s = flags.number("status-interval");
        const auto progress = progress_mode_from_string(flags.text("progress"));
        if (!progress) bad_value("--progress", flags.text("progress"), "auto, bar, lines or none");
        o.progress = *progress;
        if (!(o.lock_timeout_s >= 0.0)) throw UsageError("--lock-timeout must be >= 0");
        if (!(o.stop_grace_s >= 0.0)) throw UsageError("--stop-grace must be >= 0");
        if (!(o.status_interval_s > 0.0)) throw UsageError("--status-interval must be > 0");
    } catch (const cxxopts::exceptions::exception& error) {
        // cxxopts quotes the offending argument whole.
        throw UsageError(excerpt(error.what(), 4 * kExcerptChars));
    }
    parsed.options = std::move(o);
    return parsed;
}

void check_aiter_mp(const TuneOptions& options, int world_size) {
    if (!options.mp || *options.mp == world_size) return;
    throw UsageError("--mp " + std::to_string(*options.mp) + ": this launch has " +
                     std::to_string(world_size) + (world_size == 1 ? " rank" : " ranks") +
                     ", and fhmoe_tune_mpi runs one worker per rank (one rank per GPU); start " +
                     std::to_string(*options.mp) + " ranks instead (mpirun -np " +
                     std::to_string(*options.mp) + " ... or srun -n " +
                     std::to_string(*options.mp) + " ...), or leave --mp out");
}

}  // namespace fhmoe::cluster
