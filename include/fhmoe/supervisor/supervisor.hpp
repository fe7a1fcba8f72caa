#pragma once

// Runs measurement work on one worker process and survives it: per-candidate deadlines,
// deaths (signal, exit, EOF), kills of stuck workers, restarts that reload the shape and go
// on with the candidates behind the fault (DESIGN.md section 1, steps 3-4).
//
// The supervisor is a state machine driven by poll(): it never blocks longer than the
// timeout it is given, and wait_fd() is one stable descriptor (across worker restarts) that
// becomes readable whenever poll() has something to do (a frame, a death, a deadline), so an
// MPI rank loop can put it in its own poll() next to everything else.
//
// The worker is spawned with posix_spawn (never fork: this runs inside MPI ranks) and talks
// over a socketpair (a bidirectional pipe whose writes can use MSG_NOSIGNAL, so a dead
// worker is an EPIPE, not a process-wide SIGPIPE).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/supervisor/chunk.hpp"
#include "fhmoe/supervisor/events.hpp"
#include "fhmoe/worker/backend_kind.hpp"

namespace fhmoe::supervisor {

struct SupervisorConfig {
    std::string worker_executable;                           // path of fhmoe_worker
    worker::BackendKind backend = worker::BackendKind::cpu;  // the worker's --backend
    // Extra worker flags, passed through verbatim: --inject-fault, --memory-limit-bytes,
    // --device, --sim-speed...
    std::vector<std::string> worker_args;
    int rank = -1;                    // stamped into every result's MeasuredOn
    double startup_timeout_s = 30.0;  // spawn -> hello
    double load_timeout_s = 600.0;    // one shape load (data generation + reference)
    double stop_grace_s = 5.0;        // after request_stop(), the candidate in flight may finish
    std::uint32_t max_load_attempts = 2;  // a load failure is retried once with a fresh worker
};

class Supervisor {
public:
    explicit Supervisor(SupervisorConfig config);
    ~Supervisor();  // kills and reaps the worker if one is alive
    Supervisor(const Supervisor&) = delete;
    Supervisor& operator=(const Supervisor&) = delete;

    // Queue work. Only one chunk or race runs at a time; start_* requires idle().
    // The worker (and its loaded shape) is kept across chunks: a chunk with the same shape
    // and seed as the last load does not reload (shape affinity).
    void start_chunk(Chunk chunk);
    void start_race(Race race);

    // Readable when poll() would make progress. Stable for the supervisor's life.
    int wait_fd() const;

    // Waits up to timeout_ms (0: do not wait, -1: until something happens) and returns the
    // events that happened, in order. Deadlines are enforced here.
    std::vector<Event> poll(int timeout_ms);

    // No chunk or race in progress (every event of the last one has been returned).
    bool idle() const;

    // Stop the current work: the candidate in flight may finish within stop_grace_s, then
    // the worker is killed; every candidate not measured comes back not_run. Idempotent.
    void request_stop();

    // Ask the worker to exit (shutdown frame), wait for it up to `grace`, then kill it.
    void shutdown(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

    // The live worker's pid, if any.
    std::optional<int> worker_pid() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace fhmoe::supervisor
