#pragma once

// The worker process's main loop: say hello, then serve commands from the supervisor until
// shutdown or end of stream. Returns the process exit status.

#include "fhmoe/worker/backend.hpp"
#include "fhmoe/worker/fault_spec.hpp"

namespace fhmoe::worker {

// Exit statuses of a worker (the supervisor reports anything else as a crash).
inline constexpr int worker_exit_ok = 0;               // shutdown or supervisor gone
inline constexpr int worker_exit_poisoned = 10;        // context faulted; replace me
inline constexpr int worker_exit_protocol_error = 11;  // a frame it could not decode

int serve(Backend& backend, const FaultPlan& faults, int socket_fd);

}  // namespace fhmoe::worker
