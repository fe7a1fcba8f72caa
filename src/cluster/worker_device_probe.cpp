#include "cluster/worker_device_probe.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "fhmoe/error.hpp"

extern char** environ;

namespace fhmoe::cluster {
namespace {

struct ProcessOutput {
    int status = 0;
    std::string stdout_text;
};

// posix_spawn, never fork: this runs inside an MPI rank. The child's stdout and stderr go to
// one pipe; its output is a few lines, so reading to EOF then reaping cannot deadlock.
ProcessOutput run_and_capture(const std::vector<std::string>& argv) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        throw Error(std::string("cannot create a pipe for the device probe: ") +
                    std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int spawned =
        ::posix_spawn(&pid, argv.front().c_str(), &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(pipe_fds[1]);
    if (spawned != 0) {
        ::close(pipe_fds[0]);
        throw Error("cannot start " + argv.front() + ": " + std::strerror(spawned));
    }
    ProcessOutput output;
    char buffer[4096];
    for (;;) {
        const ssize_t got = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (got > 0) {
            output.stdout_text.append(buffer, static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
            break;
        }
    }
    ::close(pipe_fds[0]);
    while (::waitpid(pid, &output.status, 0) < 0 && errno == EINTR) {
    }
    return output;
}

int parse_int(const std::string& key, const std::string& value) {
    try {
        std::size_t used = 0;
        const int parsed = std::stoi(value, &used);
        if (used == value.size()) return parsed;
    } catch (const std::exception&) {
    }
    throw Error("device probe: '" + key + "' is not a number: '" + value + "'");
}

}  // namespace

WorkerDeviceDescription parse_device_description(const std::string& text) {
    WorkerDeviceDescription description;
    bool saw_count = false;
    std::optional<std::string> gfx;
    std::optional<int> cu_num;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        const auto equals = line.find('=');
        if (equals == std::string::npos) continue;  // a log line of the runtime, not ours
        const std::string key = line.substr(0, equals);
        const std::string value = line.substr(equals + 1);
        if (key == "devices") {
            description.visible_devices = parse_int(key, value);
            saw_count = true;
        } else if (key == "gfx") {
            gfx = value;
        } else if (key == "cu_num") {
            cu_num = parse_int(key, value);
        } else if (key == "uuid") {
            description.uuid = value;
        } else if (key == "name") {
            description.name = value;
        }
    }
    if (!saw_count) throw Error("device probe: the worker printed no 'devices=' line");
    if (gfx.has_value() != cu_num.has_value()) {
        throw Error("device probe: the worker printed only one of gfx and cu_num");
    }
    if (gfx) description.key = family::DeviceKey{*gfx, *cu_num};
    return description;
}

WorkerDeviceDescription describe_worker_device(const std::string& worker_executable,
                                               worker::BackendKind backend,
                                               std::optional<int> device_index) {
    const std::string backend_text(worker::backend_name(backend));
    std::vector<std::string> argv = {worker_executable, "--backend", backend_text,
                                     "--describe-device"};
    if (device_index) {
        argv.push_back("--device");
        argv.push_back(std::to_string(*device_index));
    }
    const ProcessOutput output = run_and_capture(argv);
    if (!WIFEXITED(output.status) || WEXITSTATUS(output.status) != 0) {
        const std::string how = WIFEXITED(output.status)
                                    ? "exit code " + std::to_string(WEXITSTATUS(output.status))
                                    : "signal " + std::to_string(WTERMSIG(output.status));
        throw Error("device probe `" + worker_executable + " --backend " + backend_text +
                    " --describe-device` failed (" + how + "): " + output.stdout_text);
    }
    return parse_device_description(output.stdout_text);
}

}  // namespace fhmoe::cluster
