#pragma once

// SIGTERM / SIGINT / SIGUSR1 (Slurm preemption, the time limit, Ctrl-C, a launcher asked to
// stop the job) turned into something a poll() loop can wait on: the handler only sets a flag
// and writes one byte to a self-pipe, which is async-signal-safe; the rank loop sees the pipe
// become readable and starts its orderly stop (stop dispatching, let in-flight candidates
// finish, flush, write, exit 3).
//
// SIGUSR1 is the one signal both launchers pass on to the ranks at once and leave at that:
// mpirun (Open MPI 4.1) answers SIGTERM/SIGINT by killing the ranks two seconds later with
// its own exit status 1, and srun answers SIGTERM with SIGKILL, whereas both forward SIGUSR1
// and then return the ranks' exit status (3). docs/operations.md section 6.

namespace fhmoe::cluster {

class TerminationSignals {
public:
    // Installs the handlers for SIGTERM, SIGINT and SIGUSR1; restores the previous ones on
    // destruction. At most one instance may exist at a time.
    TerminationSignals();
    ~TerminationSignals();
    TerminationSignals(const TerminationSignals&) = delete;
    TerminationSignals& operator=(const TerminationSignals&) = delete;

    // Readable once a signal arrived; include it in poll().
    int wait_fd() const noexcept;
    bool requested() const noexcept;
    // The first signal received (SIGTERM, SIGINT or SIGUSR1), 0 when none.
    int signal_number() const noexcept;
};

}  // namespace fhmoe::cluster
