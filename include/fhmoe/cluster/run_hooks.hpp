#pragma once

// Points at which a test acts on a running tuner at a moment it chooses, deterministically
// instead of racing a timer. A production run leaves them empty; fhmoe_tune_mpi's main sets
// them from FHMOE_TEST_* variables (tune_mpi_main.cpp), the one place that reads them, since
// the process tests start the tuner under mpiexec. Rank 0 calls them; other ranks ignore them.

#include <cstddef>
#include <functional>

namespace fhmoe::cluster {

struct RunHooks {
    // After every flush of rank 0's journal, with the records this process has flushed so
    // far (the resume tests SIGKILL rank 0 here, at a chosen record).
    std::function<void(std::size_t records_flushed)> after_journal_flush;
    // Before rank 0 hands out work: true holds all work back until a signal stops the run,
    // so a preemption test can signal a run that is certainly mid-run (a fast backend could
    // otherwise finish between the test's look at the journal and its signal).
    std::function<bool(std::size_t records_flushed)> hold_work;
};

}  // namespace fhmoe::cluster
