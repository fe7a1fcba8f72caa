#pragma once

// One run of fhmoe_tune_mpi on this rank, MPI already initialised: rank 0 plans (or resumes),
// coordinates, decides and writes; every other rank measures what it is given. Typed errors
// escape to the main, which maps them to exit codes.

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

// `hooks` are for tests (run_hooks.hpp).
ExitCode run_tune(const TuneOptions& options, const RunHooks& hooks = {});

}  // namespace fhmoe::cluster
