#include "fhmoe/worker/worker_options.hpp"

#include <cxxopts.hpp>

#include "fhmoe/error.hpp"

namespace fhmoe::worker {
namespace {

cxxopts::Options make_options() {
    cxxopts::Options options("fhmoe_worker",
                             "Measurement worker: started by a supervisor, speaks the worker "
                             "protocol on a socket; not meant to be run by hand.");
    options.add_options()("backend",
                          "cpu | sim | gpu (gpu: builds with FHMOE_GPU_BACKEND=CUDA|HIP)",
                          cxxopts::value<std::string>()->default_value("cpu"))(
        "socket-fd", "descriptor of the supervisor's socket",
        cxxopts::value<int>()->default_value("3"))(
        "supervisor-pid", "exit at once unless this is the parent (the supervisor died early)",
        cxxopts::value<int>()->default_value("0"))(
        "inject-fault", "faults to inject, e.g. crash@3,hang@t3_h512_i128_e17_k5_gui:7",
        cxxopts::value<std::string>()->default_value(""))("memory-limit-bytes",
                                                          "cap the free memory the preflight sees",
                                                          cxxopts::value<std::uint64_t>())(
        "device", "device index (gpu: the runtime's ordinal; sim: simulated device id)",
        cxxopts::value<int>()->default_value("0"))("cpu-threads",
                                                   "cpu: threads per op (0: all cores)",
                                                   cxxopts::value<int>()->default_value("0"))(
        "sim-speed", "sim: speed factor of the simulated device",
        cxxopts::value<double>()->default_value("1.0"))(
        "describe-device",
        "print devices=N (and with --device: gfx, cu_num, name, uuid of that device) and exit")(
        "help", "print usage")("version", "print the version and exit");
    return options;
}

}  // namespace

std::string worker_usage() { return make_options().help(); }

WorkerOptions parse_worker_options(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    argv.push_back("fhmoe_worker");
    for (const std::string& arg : args) argv.push_back(arg.c_str());
    cxxopts::Options options = make_options();
    WorkerOptions parsed;
    try {
        const auto result = options.parse(static_cast<int>(argv.size()), argv.data());
        if (!result.unmatched().empty()) {
            throw InputError("", 0, 0, result.unmatched().front(), "unexpected argument");
        }
        parsed.backend = parse_backend_kind(result["backend"].as<std::string>(), "--backend");
        parsed.socket_fd = result["socket-fd"].as<int>();
        parsed.supervisor_pid = result["supervisor-pid"].as<int>();
        parsed.backend_options.device_index = result["device"].as<int>();
        parsed.device_given = result.count("device") != 0;
        parsed.describe_device = result.count("describe-device") != 0;
        parsed.backend_options.sim_speed = result["sim-speed"].as<double>();
        parsed.backend_options.cpu_threads = result["cpu-threads"].as<int>();
        if (result.count("memory-limit-bytes") != 0) {
            parsed.backend_options.memory_limit_bytes =
                result["memory-limit-bytes"].as<std::uint64_t>();
        }
        try {
            parsed.faults = FaultPlan::parse(result["inject-fault"].as<std::string>());
        } catch (const ParseError& error) {
            throw InputError("", 0, 0, "--inject-fault", error.what());
        }
    } catch (const cxxopts::exceptions::exception& error) {
        throw InputError("", 0, 0, "command line", error.what());
    }
    if (!(parsed.backend_options.sim_speed > 0.0)) {
        throw InputError("", 0, 0, "--sim-speed", "must be a positive factor");
    }
    if (parsed.backend_options.cpu_threads < 0) {
        throw InputError("", 0, 0, "--cpu-threads", "must be >= 0");
    }
    if (parsed.socket_fd < 0) throw InputError("", 0, 0, "--socket-fd", "must be >= 0");
    return parsed;
}

}  // namespace fhmoe::worker
