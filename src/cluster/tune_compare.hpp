#pragma once

// --compare [--update_improved] (aiter's pre/post production benchmark, reference section
// 4.7): every shape whose decision would publish a row is replayed end to end with what
// serving runs today (pre: the incumbent) and with the new row (post), pre and post of a
// shape back to back in one fresh worker. The plan is tuning::build_compare_plan, whose bar
// is the gate's. Only --update_improved writes, and only the rows the plan marks; without it
// the tuned CSV is never modified (aiter's rule).

#include <vector>

#include "cluster/mpi_transport/termination_signals.hpp"
#include "cluster/run_state/tuned_outputs.hpp"
#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/supervisor/supervisor.hpp"
#include "fhmoe/tuning/compare_plan.hpp"

namespace fhmoe::cluster {

struct CompareOutcome {
    std::vector<tuning::CompareRow> plan;
    // --update_improved could not write the rows the plan marks; the previous tuned CSV is
    // as it was, and --resume (every shape decided in the journal) replays and writes them.
    bool lock_timed_out = false;  // another writer held the CSV's lock
    bool write_failed = false;    // the file system refused the write (a full disk)
};

CompareOutcome compare_and_update(const TuneOptions& options, const family::DeviceKey& device,
                                  const std::vector<DecidedShape>& decided,
                                  const supervisor::SupervisorConfig& config,
                                  TerminationSignals& signals);

}  // namespace fhmoe::cluster
