#pragma once

// Which files a run of fhmoe_tune_mpi reads and writes, by flag, and their checks before
// anything is measured (issue #12): every input readable, every output's directory really
// writable, the worker executable, and no output naming the same file as another output or
// an input. A problem is an fhmoe::InputError naming the flag and the path (exit code 2).

#include "fhmoe/cluster/tune_options.hpp"

namespace fhmoe::cluster {

// Rank 0: every path of the run, in the mode `options` asks for (a new run, --resume,
// --run_config). Nothing is created or changed, except a probe file made and removed in each
// output's directory.
void check_run_paths(const TuneOptions& options);

// Any rank: the worker program this rank will start (on another node it may be missing even
// when rank 0 has it).
void check_worker_path(const TuneOptions& options);

}  // namespace fhmoe::cluster
