#pragma once

// Replaying tuned rows the way serving uses them (aiter's run_config, reference section 4.2):
// the op runs at the M serving runs (a raw token 3 with the row of lookup token 4), with the
// kernels the row names, end to end, in a fresh worker process, and is checked against the
// reference. `--run_config [CSV]` prints these; `--compare` uses them before and after.

#include <string>
#include <vector>

#include "cluster/mpi_transport/termination_signals.hpp"
#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/exit_code.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/supervisor/supervisor.hpp"
#include "fhmoe/tuning/result.hpp"

namespace fhmoe::cluster {

struct ReplayTarget {
    family::ShapeKey shape;  // the M the op runs with
    family::Candidate candidate;
    std::string source;  // "tuned.csv:5" or "default config"
};

struct ReplayOutcome {
    ReplayTarget target;
    tuning::CandidateResult result;  // status ok: e2e timing and accuracy
};

// Runs every target in one fresh supervised worker (consecutive targets of one shape share
// its loaded data). A signal stops the replay: the rest come back not_run.
std::vector<ReplayOutcome> replay(const std::vector<ReplayTarget>& targets,
                                  const supervisor::SupervisorConfig& config,
                                  const TuneOptions& options, TerminationSignals& signals);

// --run_config [CSV]: with a CSV, its rows for this device at their lookup tokens; bare, the
// shapes of -i as serving looks them up in -o (the default config when there is no row).
// Prints one line per row; exit code 0 when every row ran ok, 1 otherwise.
ExitCode run_config_replay(const TuneOptions& options, const family::DeviceKey& device,
                           const supervisor::SupervisorConfig& config, TerminationSignals& signals);

}  // namespace fhmoe::cluster
