#pragma once

// One spawned worker process: its pid, its end of the socketpair, and a pidfd that becomes
// readable when it dies (so death is an event in the supervisor's poll set, not a guess).

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace fhmoe::supervisor {

class WorkerProcess {
public:
    // posix_spawn (never fork: the caller may be an MPI rank with pinned memory and threads)
    // with the child's end of a socketpair on worker::worker_socket_fd, default signal
    // dispositions, an empty signal mask and its own process group (a terminal's Ctrl-C goes
    // to the rank, which stops the worker in order). Throws fhmoe::Error when spawning fails.
    static WorkerProcess spawn(const std::string& executable, const std::vector<std::string>& args);

    WorkerProcess(WorkerProcess&& other) noexcept;
    WorkerProcess& operator=(WorkerProcess&& other) noexcept;
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;
    ~WorkerProcess();  // kills and reaps a live worker

    pid_t pid() const { return pid_; }
    int socket_fd() const { return socket_fd_; }
    int pid_fd() const { return pid_fd_; }

    // The wait status if the process has exited (reaps it), nullopt while it runs.
    std::optional<int> try_reap();
    // Waits up to timeout_ms for it to exit by itself; the wait status, or nullopt.
    std::optional<int> wait_exit(int timeout_ms);
    // SIGKILL and reap; returns the wait status (the earlier one if it already exited).
    int kill_and_reap();

private:
    WorkerProcess(pid_t pid, int socket_fd, int pid_fd)
        : pid_(pid), socket_fd_(socket_fd), pid_fd_(pid_fd) {}
    void close_fds();

    pid_t pid_ = -1;
    int socket_fd_ = -1;
    int pid_fd_ = -1;
    std::optional<int> status_;
};

// "killed by signal 11 (SIGSEGV)", "exited with code 3".
std::string describe_wait_status(int status);

}  // namespace fhmoe::supervisor
