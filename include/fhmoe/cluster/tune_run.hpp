#pragma once

// One run of fhmoe_tune_mpi on this rank, MPI already initialised: rank 0 plans (or resumes),
// coordinates, decides and writes; every other rank measures what it is given. Typed errors
// escape to the main, which maps them to exit codes.

#include <memory>

#include "fhmoe/cluster/progress_terminal.hpp"
#include "fhmoe/cluster/run_hooks.hpp"
#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/exit_code.hpp"

namespace fhmoe::cluster {

// The requested backend is not built in (exit code not_available).
class NotAvailableError : public Error {
public:
    using Error::Error;
};

// `hooks` are for tests (run_hooks.hpp). `progress_terminal`: where rank 0 draws its progress
// bar, the sink its log lines go through too (progress_terminal.hpp); null for progress lines
// (or none, with --progress none). Other ranks ignore it.
ExitCode run_tune(const TuneOptions& options, const RunHooks& hooks = {},
                  std::shared_ptr<ProgressTerminal> progress_terminal = nullptr);

}  // namespace fhmoe::cluster
