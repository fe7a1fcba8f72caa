#include "worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fhmoe/error.hpp"
#include "fhmoe/worker/protocol.hpp"

extern char** environ;

namespace fhmoe::supervisor {
namespace {

[[noreturn]] void system_error(const std::string& what) {
    throw Error(what + ": " + std::strerror(errno));
}

// Spawn attributes and file actions, destroyed on every path.
struct SpawnSetup {
    posix_spawn_file_actions_t actions{};
    posix_spawnattr_t attributes{};
    SpawnSetup() {
        posix_spawn_file_actions_init(&actions);
        posix_spawnattr_init(&attributes);
    }
    ~SpawnSetup() {
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

WorkerProcess WorkerProcess::spawn(const std::string& executable,
                                   const std::vector<std::string>& args) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        system_error("socketpair for the worker");
    }
    int child_end = ends[1];
    // dup2 onto the same number would keep FD_CLOEXEC and the child would lose its socket.
    if (child_end == worker::worker_socket_fd) {
        child_end = ::fcntl(ends[1], F_DUPFD_CLOEXEC, worker::worker_socket_fd + 1);
        ::close(ends[1]);
        if (child_end < 0) {
            ::close(ends[0]);
            system_error("dup of the worker's socket");
        }
    }

    SpawnSetup setup;
    posix_spawn_file_actions_adddup2(&setup.actions, child_end, worker::worker_socket_fd);
    sigset_t empty;
    sigset_t all;
    sigemptyset(&empty);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&setup.attributes, &empty);
    posix_spawnattr_setsigdefault(&setup.attributes, &all);
    posix_spawnattr_setpgroup(&setup.attributes, 0);
    posix_spawnattr_setflags(
        &setup.attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(executable.c_str()));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    pid_t pid = -1;
    const int spawn_error = ::posix_spawn(&pid, executable.c_str(), &setup.actions,
                                          &setup.attributes, argv.data(), environ);
    ::close(child_end);
    if (spawn_error != 0) {
        ::close(ends[0]);
        if (spawn_error == ENOENT || spawn_error == EACCES || spawn_error == ENOEXEC) {
            // The program named by --worker is missing or not runnable on this node: the
            // user's to fix (exit 2), not a fault of the tuner.
            throw InputError(executable, 0, 0, "worker",
                             std::string("cannot start the worker: ") + std::strerror(spawn_error));
        }
        errno = spawn_error;
        system_error("cannot start worker '" + executable + "'");
    }
    const int pid_fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pid_fd < 0) {
        const int saved = errno;
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        ::close(ends[0]);
        errno = saved;
        system_error("pidfd_open for worker pid " + std::to_string(pid));
    }
    return WorkerProcess(pid, ends[0], pid_fd);
}

WorkerProcess::WorkerProcess(WorkerProcess&& other) noexcept
    : pid_(other.pid_),
      socket_fd_(other.socket_fd_),
      pid_fd_(other.pid_fd_),
      status_(other.status_) {
    other.pid_ = -1;
    other.socket_fd_ = -1;
    other.pid_fd_ = -1;
}

WorkerProcess& WorkerProcess::operator=(WorkerProcess&& other) noexcept {
    if (this != &other) {
        if (pid_ > 0 && !status_) kill_and_reap();
        close_fds();
        pid_ = other.pid_;
        socket_fd_ = other.socket_fd_;
        pid_fd_ = other.pid_fd_;
        status_ = other.status_;
        other.pid_ = -1;
        other.socket_fd_ = -1;
        other.pid_fd_ = -1;
    }
    return *this;
}

WorkerProcess::~WorkerProcess() {
    if (pid_ > 0 && !status_) kill_and_reap();
    close_fds();
}

void WorkerProcess::close_fds() {
    if (socket_fd_ >= 0) ::close(socket_fd_);
    if (pid_fd_ >= 0) ::close(pid_fd_);
    socket_fd_ = -1;
    pid_fd_ = -1;
}

std::optional<int> WorkerProcess::try_reap() {
    if (status_) return status_;
    int status = 0;
    pid_t reaped = 0;
    do {
        reaped = ::waitpid(pid_, &status, WNOHANG);
    } while (reaped < 0 && errno == EINTR);
    if (reaped == pid_) status_ = status;
    return status_;
}

std::optional<int> WorkerProcess::wait_exit(int timeout_ms) {
    if (status_) return status_;
    pollfd watch{pid_fd_, POLLIN, 0};
    int ready = 0;
    do {
        ready = ::poll(&watch, 1, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    return try_reap();
}

int WorkerProcess::kill_and_reap() {
    if (status_) return *status_;
    ::kill(pid_, SIGKILL);
    int status = 0;
    pid_t reaped = 0;
    do {
        reaped = ::waitpid(pid_, &status, 0);
    } while (reaped < 0 && errno == EINTR);
    status_ = status;
    return status;
}

std::string describe_wait_status(int status) {
    if (WIFSIGNALED(status)) {
        const int signal_number = WTERMSIG(status);
        const char* name = ::sigabbrev_np(signal_number);
        return "killed by signal " + std::to_string(signal_number) +
               (name != nullptr ? " (SIG" + std::string(name) + ")" : std::string());
    }
    if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
    return "ended with wait status " + std::to_string(status);
}

}  // namespace fhmoe::supervisor
