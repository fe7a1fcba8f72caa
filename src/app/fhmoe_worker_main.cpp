// fhmoe_worker: the measurement process a supervisor spawns (one per GPU). It owns the
// device context; when that context faults, the process is replaced, never reused.

#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/exit_code.hpp"
#include "fhmoe/version.hpp"
#include "fhmoe/worker/backend.hpp"
#include "fhmoe/worker/worker_loop.hpp"
#include "fhmoe/worker/worker_options.hpp"

namespace {

// The rank never touches the GPU itself: before its first shape it asks a short-lived worker
// how many devices it sees and, for the device it picked, which gfx/cu_num the tuned rows
// carry. One `key=value` per line, the name last (it may hold spaces).
int describe_device(const fhmoe::worker::WorkerOptions& options) {
    std::printf("devices=%d\n", fhmoe::worker::visible_device_count(options.backend));
    if (options.device_given) {
        const auto backend = fhmoe::worker::make_backend(options.backend, options.backend_options);
        const fhmoe::family::DeviceKey key = backend->tuning_key();
        const fhmoe::tuning::MeasuredOn device = backend->device();
        std::printf("gfx=%s\ncu_num=%d\nuuid=%s\nname=%s\n", key.gfx.c_str(), key.cu_num,
                    device.device_uuid.c_str(), device.device_name.c_str());
    }
    return std::fflush(stdout) == 0 ? 0 : fhmoe::to_int(fhmoe::ExitCode::internal_error);
}

}  // namespace

int main(int argc, char** argv) {
    // Die with the supervisor, whatever killed it: an orphaned worker would hold its GPU.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // A crashing candidate must cost a restart (~0.3 s), not a multi-gigabyte core dump.
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    // Slurm's scancel --signal=TERM, a job's time limit and srun passing on a SIGUSR1 signal
    // every process of the step, this one too. The worker's life is its supervisor's business: the
    // rank stops it after the candidate in flight (or kills it), so a signal here must not turn
    // that candidate into a crash.
    std::signal(SIGTERM, SIG_IGN);
    std::signal(SIGINT, SIG_IGN);
    std::signal(SIGUSR1, SIG_IGN);

    const std::vector<std::string> args(argv + 1, argv + argc);
    for (const std::string& arg : args) {
        if (arg == "--help" || arg == "-h") {
            std::fputs(fhmoe::worker::worker_usage().c_str(), stdout);
            return 0;
        }
        if (arg == "--version") {
            std::printf("%s\n", fhmoe::version_line("fhmoe_worker").c_str());
            return 0;
        }
    }
    try {
        const fhmoe::worker::WorkerOptions options = fhmoe::worker::parse_worker_options(args);
        // The supervisor may have died between spawn and prctl: then nobody would kill us.
        if (options.supervisor_pid != 0 && ::getppid() != options.supervisor_pid) {
            return fhmoe::to_int(fhmoe::ExitCode::internal_error);
        }
        if (options.describe_device) return describe_device(options);
        auto backend = fhmoe::worker::make_backend(options.backend, options.backend_options);
        return fhmoe::worker::serve(*backend, options.faults, options.socket_fd);
    } catch (const fhmoe::InputError& error) {
        std::fprintf(stderr, "fhmoe_worker: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const fhmoe::worker::BackendNotAvailable& error) {
        std::fprintf(stderr, "fhmoe_worker: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::not_available);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "fhmoe_worker: internal error: %s\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::internal_error);
    }
}
