#include "fhmoe_run_shape/run_shape_cli.hpp"

#include <unistd.h>

#include <cstdio>
#include <cxxopts.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/exit_code.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/catalogue_sample.hpp"
#include "fhmoe/family/fhmoe_policy.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/supervisor/run_blocking.hpp"
#include "fhmoe/supervisor/supervisor.hpp"
#include "fhmoe/tuning/policy.hpp"
#include "fhmoe/version.hpp"
#include "fhmoe/worker/backend_kind.hpp"
#include "fhmoe/worker/fault_spec.hpp"

namespace fhmoe::run_shape {

namespace {

using fhmoe::InputError;

cxxopts::Options make_options(const fhmoe::tuning::MeasurementPolicy& policy) {
    cxxopts::Options options("fhmoe_run_shape",
                             "Measure one shape's candidates on one supervised worker.");
    options.add_options("shape")("untuned", "take the shape from the first row of this CSV",
                                 cxxopts::value<std::string>())("token", "M",
                                                                cxxopts::value<std::int64_t>())(
        "model_dim", "H", cxxopts::value<std::int64_t>())("inter_dim", "I",
                                                          cxxopts::value<std::int64_t>())(
        "expert", "E (routed + the shared expert's dummy row)", cxxopts::value<std::int64_t>())(
        "topk", "routed slots + 1", cxxopts::value<std::int64_t>())(
        "gate_mode", "interleave | separated",
        cxxopts::value<std::string>()->default_value("interleave"));
    options.add_options("candidates")(
        "candidates", "explicit ';'-separated candidate keys bm{M}|{stage1}|{stage2}",
        cxxopts::value<std::string>())("candidate-sample", "seeded sample of N (0: all)",
                                       cxxopts::value<std::size_t>()->default_value("0"))(
        "seed", "data and sampling seed", cxxopts::value<std::uint64_t>()->default_value("0"));
    options.add_options("measurement")("backend", "cpu | gpu | sim",
                                       cxxopts::value<std::string>()->default_value("cpu"))(
        "warmup", "untimed runs",
        cxxopts::value<int>()->default_value(std::to_string(policy.warmup)))(
        "iters", "timed runs", cxxopts::value<int>()->default_value(std::to_string(policy.iters)))(
        "errRatio", "largest mismatching fraction that passes",
        cxxopts::value<double>()->default_value(std::to_string(policy.err_ratio)))(
        "timeout", "seconds per candidate",
        cxxopts::value<double>()->default_value(std::to_string(policy.timeout_s)))(
        "graph_replay", "gpu: time graph replays (false: eager launches)",
        cxxopts::value<bool>()->default_value(policy.graph_replay ? "true" : "false"))(
        "load-timeout", "seconds for the shape load",
        cxxopts::value<double>()->default_value("600"))(
        "inject-fault", "e.g. crash@3,hang@5 (see fhmoe_worker --help)",
        cxxopts::value<std::string>()->default_value(""))(
        "memory-limit-bytes", "cap the worker's free memory", cxxopts::value<std::uint64_t>())(
        "sim-speed", "sim: device speed factor", cxxopts::value<double>())(
        "cpu-threads", "cpu: threads per op (0: all cores)", cxxopts::value<int>())(
        "worker", "fhmoe_worker path (default: next to this program)",
        cxxopts::value<std::string>())("help", "print usage")("version",
                                                              "print the version and exit");
    return options;
}

fhmoe::family::ShapeKey shape_from(const cxxopts::ParseResult& args) {
    if (args.count("untuned") != 0) {
        const auto table = fhmoe::config::read_untuned_csv(args["untuned"].as<std::string>());
        if (table.shapes.empty()) {
            throw InputError(table.path, 0, 0, "", "no shape rows in the untuned CSV");
        }
        return table.shapes.front().shape;
    }
    fhmoe::family::ShapeKey shape;
    for (const char* flag : {"token", "model_dim", "inter_dim", "expert", "topk"}) {
        if (args.count(flag) == 0) {
            throw InputError("", 0, 0, std::string("--") + flag,
                             "required unless --untuned gives the shape");
        }
    }
    shape.token = args["token"].as<std::int64_t>();
    shape.model_dim = args["model_dim"].as<std::int64_t>();
    shape.inter_dim = args["inter_dim"].as<std::int64_t>();
    shape.expert = args["expert"].as<std::int64_t>();
    shape.topk = args["topk"].as<std::int64_t>();
    shape.shared_expert_id = shape.expert - 1;
    const std::string gate = args["gate_mode"].as<std::string>();
    if (gate != "interleave" && gate != "separated") {
        throw InputError("", 0, 0, "--gate_mode", "must be interleave or separated");
    }
    shape.gate_mode = gate == "interleave" ? fhmoe::family::GateMode::interleave
                                           : fhmoe::family::GateMode::separated;
    return shape;
}

std::vector<fhmoe::family::Candidate> candidates_from(const cxxopts::ParseResult& args,
                                                      const fhmoe::family::ShapeKey& shape) {
    if (args.count("candidates") != 0) {
        std::vector<fhmoe::family::Candidate> list;
        std::string text = args["candidates"].as<std::string>();
        std::size_t start = 0;
        while (start <= text.size()) {
            const std::size_t end = std::min(text.find(';', start), text.size());
            const std::string key = text.substr(start, end - start);
            const std::size_t bar1 = key.find('|');
            const std::size_t bar2 = key.find('|', bar1 + 1);
            if (key.rfind("bm", 0) != 0 || bar1 == std::string::npos || bar2 == std::string::npos) {
                throw InputError("", 0, 0, "--candidates",
                                 "'" + key + "' is not bm{M}|{stage1}|{stage2}");
            }
            fhmoe::tuning::CandidateId id;
            try {
                id.block_m = std::stoi(key.substr(2, bar1 - 2));
                id.stage1 = key.substr(bar1 + 1, bar2 - bar1 - 1);
                id.stage2 = key.substr(bar2 + 1);
                list.push_back(fhmoe::family::from_candidate_id(id));
            } catch (const std::exception& error) {
                throw InputError("", 0, 0, "--candidates", "'" + key + "': " + error.what());
            }
            start = end + 1;
        }
        return list;
    }
    const auto sample = args["candidate-sample"].as<std::size_t>();
    if (sample == 0) return fhmoe::family::build_catalogue(shape);
    return fhmoe::family::sample_shape_catalogue(shape, sample, args["seed"].as<std::uint64_t>());
}

std::string default_worker_path() {
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) throw fhmoe::Error("cannot read /proc/self/exe: " + error.message());
    return (self.parent_path() / "fhmoe_worker").string();
}

void print_event(std::FILE* out, const fhmoe::supervisor::Event& event) {
    using namespace fhmoe::supervisor;
    if (const auto* loaded = std::get_if<ShapeLoaded>(&event)) {
        std::fprintf(out,
                     "# loaded %s on %s (pid %d) in %.3f s: digest %016llx, %llu bytes in use, "
                     "%llu free\n",
                     loaded->shape_key.c_str(), loaded->device.device_name.c_str(),
                     loaded->device.worker_pid, loaded->seconds,
                     static_cast<unsigned long long>(loaded->reference_digest),
                     static_cast<unsigned long long>(loaded->bytes_in_use),
                     static_cast<unsigned long long>(loaded->bytes_free));
    } else if (const auto* failed = std::get_if<ShapeLoadFailed>(&event)) {
        std::fprintf(out, "# load of %s failed after %u attempts: %s\n", failed->shape_key.c_str(),
                     failed->attempts, failed->detail.c_str());
    } else if (const auto* restarted = std::get_if<WorkerRestarted>(&event)) {
        std::fprintf(out, "# worker pid %d replaced: %s\n", restarted->old_pid,
                     restarted->reason.c_str());
    } else if (const auto* measured = std::get_if<CandidateMeasured>(&event)) {
        const auto& r = measured->result;
        const bool timed = r.status == fhmoe::tuning::Status::ok;
        std::fprintf(out, "%5lld  %-13s %10.2f %10.2f %8.2f %9.2e %7d  %s  %s\n",
                     static_cast<long long>(measured->planned_index),
                     std::string(fhmoe::tuning::to_string(r.status)).c_str(),
                     timed ? r.timing.mean_us : 0.0, timed ? r.timing.median_us : 0.0,
                     timed ? r.timing.stderr_us : 0.0, r.error.mismatch_fraction,
                     r.where.worker_pid, r.candidate.key().c_str(), r.detail.c_str());
    }
    std::fflush(out);
}

int run(const std::vector<std::string>& arguments, std::FILE* out) {
    const fhmoe::tuning::TuningPolicy defaults = fhmoe::family::fhmoe_tuning_policy();
    cxxopts::Options options = make_options(defaults.measurement);
    cxxopts::ParseResult args;
    std::vector<const char*> argv{"fhmoe_run_shape"};
    for (const std::string& argument : arguments) argv.push_back(argument.c_str());
    try {
        args = options.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const cxxopts::exceptions::exception& error) {
        throw InputError("", 0, 0, "command line", error.what());
    }
    if (args.count("help") != 0) {
        std::fputs(options.help().c_str(), out);
        return 0;
    }
    if (args.count("version") != 0) {
        std::fprintf(out, "%s\n", fhmoe::version_line("fhmoe_run_shape").c_str());
        return 0;
    }
    if (!args.unmatched().empty()) {
        throw InputError("", 0, 0, args.unmatched().front(), "unexpected argument");
    }

    fhmoe::tuning::TuningPolicy policy = defaults;
    policy.measurement.warmup = args["warmup"].as<int>();
    policy.measurement.iters = args["iters"].as<int>();
    policy.measurement.err_ratio = args["errRatio"].as<double>();
    policy.measurement.timeout_s = args["timeout"].as<double>();
    policy.measurement.graph_replay = args["graph_replay"].as<bool>();
    try {
        fhmoe::tuning::validate(policy);
    } catch (const fhmoe::tuning::PolicyError& error) {
        throw InputError("", 0, 0, error.flag().empty() ? error.field() : error.flag(),
                         error.what());
    }

    const fhmoe::family::ShapeKey shape = shape_from(args);
    fhmoe::supervisor::Chunk chunk;
    chunk.shape = shape;
    chunk.seed = args["seed"].as<std::uint64_t>();
    chunk.candidate_timeout_s = policy.measurement.timeout_s;
    chunk.measurement = fhmoe::wire::measurement_settings(policy.measurement);
    std::int64_t index = 0;
    for (const auto& candidate : candidates_from(args, shape)) {
        chunk.candidates.push_back(
            {index++, fhmoe::family::to_candidate_id(candidate), candidate, 0});
    }

    fhmoe::supervisor::SupervisorConfig config;
    config.worker_executable =
        args.count("worker") != 0 ? args["worker"].as<std::string>() : default_worker_path();
    config.backend =
        fhmoe::worker::parse_backend_kind(args["backend"].as<std::string>(), "--backend");
    config.load_timeout_s = args["load-timeout"].as<double>();
    const std::string faults = args["inject-fault"].as<std::string>();
    if (!faults.empty()) {
        try {
            fhmoe::worker::FaultPlan::parse(faults);  // reject a typo here, not in the worker
        } catch (const fhmoe::ParseError& error) {
            throw InputError("", 0, 0, "--inject-fault", error.what());
        }
        config.worker_args.insert(config.worker_args.end(), {"--inject-fault", faults});
    }
    if (args.count("memory-limit-bytes") != 0) {
        config.worker_args.insert(config.worker_args.end(),
                                  {"--memory-limit-bytes",
                                   std::to_string(args["memory-limit-bytes"].as<std::uint64_t>())});
    }
    if (args.count("cpu-threads") != 0) {
        config.worker_args.insert(config.worker_args.end(),
                                  {"--cpu-threads", std::to_string(args["cpu-threads"].as<int>())});
    }
    if (args.count("sim-speed") != 0) {
        config.worker_args.insert(config.worker_args.end(),
                                  {"--sim-speed", std::to_string(args["sim-speed"].as<double>())});
    }

    std::fprintf(out,
                 "# %s: %zu candidates on backend %s (warmup %d, iters %d, timeout %.3g s, %s)\n",
                 fhmoe::family::shape_key_string(shape).c_str(), chunk.candidates.size(),
                 std::string(fhmoe::worker::backend_name(config.backend)).c_str(),
                 policy.measurement.warmup, policy.measurement.iters, policy.measurement.timeout_s,
                 policy.measurement.graph_replay ? "graph replay" : "eager launches");
    std::fprintf(out, "%5s  %-13s %10s %10s %8s %9s %7s  %s\n", "index", "status", "mean_us",
                 "median_us", "se_us", "mismatch", "pid", "candidate / detail");
    fhmoe::supervisor::Supervisor supervisor(config);
    bool incomplete = false;
    fhmoe::supervisor::run_chunk(
        supervisor, std::move(chunk), [&](const fhmoe::supervisor::Event& event) {
            print_event(out, event);
            const auto* measured = std::get_if<fhmoe::supervisor::CandidateMeasured>(&event);
            if (measured != nullptr && measured->result.status == fhmoe::tuning::Status::not_run) {
                incomplete = true;
            }
        });
    supervisor.shutdown();
    return fhmoe::to_int(incomplete ? fhmoe::ExitCode::incomplete : fhmoe::ExitCode::all_decided);
}

}  // namespace

int run_shape_cli(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
    try {
        return run(args, out);
    } catch (const fhmoe::InputError& error) {
        std::fprintf(err, "fhmoe_run_shape: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const fhmoe::family::UnsupportedShape& error) {
        std::fprintf(err, "fhmoe_run_shape: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const std::exception& error) {
        std::fprintf(err, "fhmoe_run_shape: internal error: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::internal_error);
    }
}

}  // namespace fhmoe::run_shape
