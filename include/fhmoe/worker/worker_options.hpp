#pragma once

// fhmoe_worker's command line, parsed apart from main() so that it is testable with argv
// vectors.

#include <string>
#include <vector>

#include "fhmoe/worker/backend.hpp"
#include "fhmoe/worker/fault_spec.hpp"
#include "fhmoe/worker/protocol.hpp"

namespace fhmoe::worker {

struct WorkerOptions {
    BackendKind backend = BackendKind::cpu;
    BackendOptions backend_options;
    FaultPlan faults;
    int socket_fd = worker_socket_fd;
    int supervisor_pid = 0;  // 0: not checked
    // --describe-device: print what the rank needs before any shape (device count; with
    // --device also the bound device's tuned-row key and identity) and exit.
    bool describe_device = false;
    bool device_given = false;  // --device was on the command line
};

// Throws fhmoe::InputError naming the flag on a bad value.
WorkerOptions parse_worker_options(const std::vector<std::string>& args);
std::string worker_usage();

}  // namespace fhmoe::worker
