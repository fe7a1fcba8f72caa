// fhmoe_tune_mpi: parse, configure logging, run, map typed errors to exit codes.

#include <mpi.h>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/cluster/mpi_environment.hpp"
#include "fhmoe/cluster/progress_terminal.hpp"
#include "fhmoe/cluster/run_hooks.hpp"
#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/cluster/tune_run.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/exit_code.hpp"
#include "fhmoe/version.hpp"

namespace {

// Where rank 0 draws its progress bar (--progress, progress_terminal.hpp): null for lines or
// none. On the launcher's terminal the bar and rank 0's log lines both go there, through one
// sink, so they interleave cleanly; the file stays open until the process exits.
std::shared_ptr<fhmoe::cluster::ProgressTerminal> progress_terminal(
    int rank, const fhmoe::cluster::TuneOptions& options) {
    using fhmoe::cluster::ProgressMode;
    if (rank != 0) return nullptr;
    const fhmoe::cluster::ProgressChoice choice = fhmoe::cluster::choose_progress(
        options.progress, ::isatty(STDERR_FILENO) != 0, fhmoe::cluster::launcher_terminal());
    if (choice.mode != ProgressMode::bar) return nullptr;
    std::FILE* out = stderr;
    if (!choice.terminal.empty()) {
        // O_NOCTTY: a rank that is a session leader must not acquire the user's terminal.
        const int fd = ::open(choice.terminal.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
        std::FILE* opened = fd >= 0 ? ::fdopen(fd, "w") : nullptr;
        if (opened != nullptr) out = opened;
    }
    return std::make_shared<fhmoe::cluster::ProgressTerminal>(out);
}

// Rank 0 talks at info; the other ranks only warn unless -v, so N ranks do not print N copies
// of the same progress. SPDLOG_LEVEL, when set, overrides both.
void configure_logging(int rank, bool verbose,
                       const std::shared_ptr<fhmoe::cluster::ProgressTerminal>& terminal) {
    auto logger = terminal ? std::make_shared<spdlog::logger>("fhmoe", terminal)
                           : spdlog::stderr_color_mt("fhmoe");
    logger->set_pattern("[%H:%M:%S.%e] [rank " + std::to_string(rank) + "] [%^%l%$] %v");
    spdlog::set_default_logger(logger);
    if (rank == 0) {
        spdlog::set_level(verbose ? spdlog::level::debug : spdlog::level::info);
    } else {
        spdlog::set_level(verbose ? spdlog::level::info : spdlog::level::warn);
    }
    spdlog::cfg::load_env_levels();
}

std::optional<std::size_t> count_from_environment(const char* name) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return std::nullopt;
    return static_cast<std::size_t>(std::strtoull(text, nullptr, 10));
}

// Test only: the process tests (tests/cluster, tests/slurm) start this program under
// mpiexec or srun and cannot hand it a callback, so they set these variables, and this is
// the one place that reads them; the library takes RunHooks.
//   FHMOE_TEST_KILL_AFTER_JOURNAL_RECORDS=N: rank 0 SIGKILLs itself once this process has
//     flushed N journal records (the resume tests kill it at a chosen point).
//   FHMOE_TEST_HOLD_AFTER_JOURNAL_RECORDS=N: rank 0 hands out no more work once this process
//     has flushed N journal records, until a signal (preemption tests); --resume ignores it.
fhmoe::cluster::RunHooks test_hooks_from_environment(const fhmoe::cluster::TuneOptions& options) {
    fhmoe::cluster::RunHooks hooks;
    if (const auto kill_at = count_from_environment("FHMOE_TEST_KILL_AFTER_JOURNAL_RECORDS")) {
        hooks.after_journal_flush = [kill_at = *kill_at](std::size_t flushed) {
            if (flushed < kill_at) return;
            spdlog::warn("test hook: SIGKILL after {} journal records", flushed);
            std::raise(SIGKILL);
        };
    }
    const auto hold_at = count_from_environment("FHMOE_TEST_HOLD_AFTER_JOURNAL_RECORDS");
    if (hold_at && !options.resume) {
        hooks.hold_work = [hold_at = *hold_at](std::size_t flushed) { return flushed >= hold_at; };
    }
    return hooks;
}

// This process's rank as its launcher (mpirun, srun) names it, before MPI starts; 0 alone.
int launcher_rank() {
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
        if (const char* value = std::getenv(name)) return std::atoi(value);
    }
    return 0;
}

// --version, --help and flag errors are answered before MPI starts: they need no other rank,
// and a singleton MPI start-up is the slow part of such a call (~45 s under ASan) and leaves
// the runtime's allocations behind. Anything else is for the run, with MPI (nullopt).
std::optional<int> answer_without_mpi(const std::vector<std::string>& args) {
    const bool speaks = launcher_rank() == 0;
    try {
        const auto parsed = fhmoe::cluster::parse_tune_command_line(args);
        if (parsed.show_version) {
            if (speaks) std::printf("%s\n", fhmoe::version_line("fhmoe_tune_mpi").c_str());
            return 0;
        }
        if (!parsed.options) {
            if (speaks) std::printf("%s\n", parsed.help_text.c_str());
            return 0;
        }
        return std::nullopt;
    } catch (const fhmoe::cluster::UsageError& error) {
        if (speaks) std::fprintf(stderr, "fhmoe_tune_mpi: %s (see --help)\n", error.what());
        return fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const std::exception&) {
        return std::nullopt;  // reported by the run's own handling below
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv, argv + argc);
    if (const auto answered = answer_without_mpi(args)) return *answered;
    MPI_Init(&argc, &argv);
    const int rank = fhmoe::cluster::world_rank();
    int code = fhmoe::to_int(fhmoe::ExitCode::internal_error);
    try {
        const auto parsed = fhmoe::cluster::parse_tune_command_line(args);
        if (parsed.show_version) {
            if (rank == 0) std::printf("%s\n", fhmoe::version_line("fhmoe_tune_mpi").c_str());
            code = 0;
        } else if (!parsed.options) {
            if (rank == 0) std::printf("%s\n", parsed.help_text.c_str());
            code = 0;
        } else {
            const auto terminal = progress_terminal(rank, *parsed.options);
            configure_logging(rank, parsed.options->verbose, terminal);
            code = fhmoe::to_int(fhmoe::cluster::run_tune(
                *parsed.options, test_hooks_from_environment(*parsed.options), terminal));
        }
    } catch (const fhmoe::cluster::UsageError& error) {
        if (rank == 0) std::fprintf(stderr, "fhmoe_tune_mpi: %s (see --help)\n", error.what());
        code = fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const fhmoe::InputError& error) {
        std::fprintf(stderr, "fhmoe_tune_mpi: %s\n", error.what());
        code = fhmoe::to_int(fhmoe::ExitCode::bad_input);
    } catch (const fhmoe::cluster::NotAvailableError& error) {
        if (rank == 0) std::fprintf(stderr, "fhmoe_tune_mpi: %s\n", error.what());
        code = fhmoe::to_int(fhmoe::ExitCode::not_available);
    } catch (const std::exception& error) {
        // run_tune has already ended the other ranks (fatal_error.hpp): an abort here would
        // kill rank 0 in the middle of its checkpoint.
        std::fprintf(stderr, "fhmoe_tune_mpi: rank %d: internal error: %s\n", rank, error.what());
        code = fhmoe::to_int(fhmoe::ExitCode::internal_error);
    }
    MPI_Finalize();
    return code;
}
