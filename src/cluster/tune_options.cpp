#include "fhmoe/cluster/tune_options.hpp"

#include <cxxopts.hpp>

#include <charconv>
#include <filesystem>
#include <string>

#include "fhmoe/family/fhmoe_policy.hpp"
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
        "winner against the incumbent and writes the tuned CSV.\n"
        "Rows carry the device they were tuned on: gfx/cu_num of the GPU; 'cpu' and the host's\n"
        "hardware threads for --backend cpu; 'sim' and 1 for --backend sim.\n"
        "Exit codes: 0 every shape decided, 1 some shape incomplete or all candidates failed,\n"
        "2 bad input (nothing written), 3 interrupted (resume with --resume), 4 not in this "
        "build.");
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
        "its decision, candidates by status, race samples, winner, incumbent, margin",
        cxxopts::value<std::string>());
    options.add_options("selection")(
        "all", "retune shapes that already have a tuned row for this gfx/cu_num (aiter --all)")(
        "candidate-sample",
        "measure a seeded sample of N candidates per shape (the default "
        "config always included) instead of the whole catalogue",
        cxxopts::value<std::size_t>())("seed",
                                       "seed of the candidate sample and of every shape's data",
                                       cxxopts::value<std::uint64_t>()->default_value("0"));
    options.add_options("measurement")("warmup", "untimed runs before the timed ones",
                                       cxxopts::value<int>()->default_value(text(m.warmup)))(
        "iters", "timed runs per candidate (and per race round)",
        cxxopts::value<int>()->default_value(text(m.iters)))(
        "errRatio", "largest fraction of mismatching output elements that passes",
        cxxopts::value<double>()->default_value(text(m.err_ratio)))(
        "timeout", "seconds one candidate may take before its worker is killed",
        cxxopts::value<double>()->default_value(text(m.timeout_s)))(
        "rtol", "relative tolerance of the element-wise accuracy check",
        cxxopts::value<double>()->default_value(text(m.rtol)))(
        "atol", "absolute tolerance of the element-wise accuracy check",
        cxxopts::value<double>()->default_value(text(m.atol)))(
        "max_cosine_distance", "largest cosine distance between output and reference that passes",
        cxxopts::value<double>()->default_value(text(m.max_cosine_distance)))(
        "rotate_inputs",
        "time against rotating input copies so inputs come cold from memory "
        "(--rotate_inputs=false turns it off)",
        cxxopts::value<bool>()->default_value(m.rotate_inputs ? "true" : "false"))(
        "backend", "cpu | gpu | sim", cxxopts::value<std::string>()->default_value("cpu"))(
        "worker", "fhmoe_worker executable (default: next to fhmoe_tune_mpi)",
        cxxopts::value<std::string>())(
        "inject-fault", "faults for the workers (tests), e.g. crash@3,hang@7,genfail!@0",
        cxxopts::value<std::string>()->default_value(""));
    options.add_options("decision")(
        "min_improvement_pct", "a challenger must beat the incumbent by at least this percent",
        cxxopts::value<double>()->default_value(text(defaults.promotion.min_improvement_pct)))(
        "finalists", "best candidates (relative to the incumbent) that reach the race",
        cxxopts::value<int>()->default_value(text(defaults.finalist.finalists)))(
        "rounds", "interleaved race rounds (>= 2)",
        cxxopts::value<int>()->default_value(text(defaults.finalist.rounds)))(
        "noise_floor_sigmas",
        "the race's noise floor is this many combined standard errors of the two means",
        cxxopts::value<double>()->default_value(text(defaults.promotion.noise_floor_sigmas)));
    options.add_options("run")("batch", "decided shapes between two writes of the tuned CSV",
                               cxxopts::value<int>()->default_value(text(defaults.run.batch)))(
        "chunk", "candidates per chunk (default: enough chunks to keep every rank busy)",
        cxxopts::value<std::size_t>())(
        "compare", "replay each decided shape end to end before (incumbent) and after (new row)")(
        "update_improved", "with --compare: write only the rows that improved by the gate's bar")(
        "run_config",
        "replay tuned rows end to end and exit: the rows of CSV, or (bare) the "
        "shapes of -i as serving looks them up in -o",
        cxxopts::value<std::string>()->implicit_value(""))(
        "lock-timeout", "seconds to wait for the tuned CSV's lock",
        cxxopts::value<double>()->default_value("120"))(
        "stop-grace", "seconds an in-flight candidate may finish after SIGTERM/SIGINT",
        cxxopts::value<double>()->default_value("5"))(
        "status-interval", "seconds between progress lines when stderr is not a terminal",
        cxxopts::value<double>()->default_value("30"))(
        "v,verbose", "more logging; ranks other than 0 log too")("h,help", "print this help");
    return options;
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
        if (!result.unmatched().empty()) {
            throw UsageError("unexpected argument '" + result.unmatched().front() + "'");
        }
        o.retune_all = result.count("all") != 0;
        o.compare = result.count("compare") != 0;
        o.update_improved = result.count("update_improved") != 0;
        if (result.count("run_config") != 0) o.run_config = result["run_config"].as<std::string>();
        if (o.update_improved && !o.compare) {
            throw UsageError("--update_improved requires --compare (as in aiter)");
        }
        const bool run_config_from_csv = o.run_config.has_value() && !o.run_config->empty();
        if (!run_config_from_csv) {
            o.untuned_path = require_path(result, "untune_file", "-i/--untune_file");
            o.tuned_path = require_path(result, "tune_file", "-o/--tune_file");
        } else {
            if (result.count("untune_file") != 0)
                o.untuned_path = result["untune_file"].as<std::string>();
            if (result.count("tune_file") != 0)
                o.tuned_path = result["tune_file"].as<std::string>();
        }

        auto& policy = o.policy;
        policy = defaults;
        policy.measurement.warmup = result["warmup"].as<int>();
        policy.measurement.iters = result["iters"].as<int>();
        policy.measurement.err_ratio = result["errRatio"].as<double>();
        policy.measurement.timeout_s = result["timeout"].as<double>();
        policy.measurement.rtol = result["rtol"].as<double>();
        policy.measurement.atol = result["atol"].as<double>();
        policy.measurement.max_cosine_distance = result["max_cosine_distance"].as<double>();
        policy.measurement.rotate_inputs = result["rotate_inputs"].as<bool>();
        policy.promotion.noise_floor_sigmas = result["noise_floor_sigmas"].as<double>();
        policy.run.batch = result["batch"].as<int>();
        policy.promotion.min_improvement_pct = result["min_improvement_pct"].as<double>();
        policy.finalist.finalists = result["finalists"].as<int>();
        policy.finalist.rounds = result["rounds"].as<int>();
        try {
            tuning::validate(policy);
        } catch (const tuning::PolicyError& error) {
            throw UsageError((error.flag().empty() ? error.field() : error.flag()) + ": " +
                             error.what());
        }

        if (result.count("candidate-sample") != 0) {
            o.candidate_sample = result["candidate-sample"].as<std::size_t>();
            if (*o.candidate_sample == 0) throw UsageError("--candidate-sample must be >= 1");
        }
        o.seed = result["seed"].as<std::uint64_t>();
        o.backend = result["backend"].as<std::string>();
        if (o.backend != "cpu" && o.backend != "gpu" && o.backend != "sim") {
            throw UsageError("--backend must be cpu, gpu or sim, not '" + o.backend + "'");
        }
        o.resume = result.count("resume") != 0;
        if (result.count("journal") != 0) o.journal_path = result["journal"].as<std::string>();
        if (o.journal_path.empty() && !o.tuned_path.empty())
            o.journal_path = o.tuned_path + ".journal";
        if (result.count("evidence") != 0) o.evidence_path = result["evidence"].as<std::string>();
        if (result.count("summary-json") != 0)
            o.summary_json_path = result["summary-json"].as<std::string>();
        if (result.count("chunk") != 0) {
            o.chunk_size = result["chunk"].as<std::size_t>();
            if (*o.chunk_size == 0) throw UsageError("--chunk must be >= 1");
        }
        o.inject_fault = result["inject-fault"].as<std::string>();
        try {
            (void)worker::FaultPlan::parse(o.inject_fault);
        } catch (const ParseError& error) {
            throw UsageError(std::string("--inject-fault: ") + error.what());
        }
        o.verbose = result.count("verbose") != 0;
        o.worker_path = result.count("worker") != 0 ? result["worker"].as<std::string>()
                                                    : default_worker_path();
        o.lock_timeout_s = result["lock-timeout"].as<double>();
        o.stop_grace_s = result["stop-grace"].as<double>();
        o.status_interval_s = result["status-interval"].as<double>();
        if (!(o.lock_timeout_s >= 0.0)) throw UsageError("--lock-timeout must be >= 0");
        if (!(o.stop_grace_s >= 0.0)) throw UsageError("--stop-grace must be >= 0");
        if (!(o.status_interval_s > 0.0)) throw UsageError("--status-interval must be > 0");
    } catch (const cxxopts::exceptions::exception& error) {
        throw UsageError(error.what());
    }
    parsed.options = std::move(o);
    return parsed;
}

}  // namespace fhmoe::cluster
