#pragma once

// SIGTERM / SIGINT (Slurm preemption, the time limit, Ctrl-C) turned into something a poll()
// loop can wait on: the handler only sets a flag and writes one byte to a self-pipe, which
// is async-signal-safe; the rank loop sees the pipe become readable and starts its orderly
// stop (stop dispatching, let in-flight candidates finish, flush, write, exit 3).

namespace fhmoe::cluster {

class TerminationSignals {
public:
    // Installs the handlers for SIGTERM and SIGINT; restores the previous ones on destruction.
    // At most one instance may exist at a time.
    TerminationSignals();
    ~TerminationSignals();
    TerminationSignals(const TerminationSignals&) = delete;
    TerminationSignals& operator=(const TerminationSignals&) = delete;

    // Readable once a signal arrived; include it in poll().
    int wait_fd() const noexcept;
    bool requested() const noexcept;
    // The first signal received (SIGTERM or SIGINT), 0 when none.
    int signal_number() const noexcept;
};

}  // namespace fhmoe::cluster
