#include "cluster/mpi_transport/termination_signals.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::cluster {
namespace {

std::atomic<int> g_first_signal{0};
int g_pipe[2] = {-1, -1};
bool g_installed = false;
struct sigaction g_previous_term;
struct sigaction g_previous_int;
struct sigaction g_previous_usr1;

extern "C" void on_termination_signal(int signal_number) {
    int expected = 0;
    g_first_signal.compare_exchange_strong(expected, signal_number);
    const char byte = 1;
    // A full pipe already means "signalled": the result of write can be ignored.
    [[maybe_unused]] ssize_t written = ::write(g_pipe[1], &byte, 1);
}

void set_flags(int fd, int flags) {
    if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | flags) != 0 ||
        ::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        throw Error(std::string("fcntl on the signal pipe failed: ") + std::strerror(errno));
    }
}

}  // namespace

TerminationSignals::TerminationSignals() {
    if (g_installed) throw InternalError("TerminationSignals installed twice");
    if (::pipe(g_pipe) != 0) {
        throw Error(std::string("cannot create the signal pipe: ") + std::strerror(errno));
    }
    set_flags(g_pipe[0], O_NONBLOCK);
    set_flags(g_pipe[1], O_NONBLOCK);
    g_first_signal.store(0);
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = on_termination_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGTERM, &action, &g_previous_term);
    ::sigaction(SIGINT, &action, &g_previous_int);
    ::sigaction(SIGUSR1, &action, &g_previous_usr1);
    g_installed = true;
}

TerminationSignals::~TerminationSignals() {
    ::sigaction(SIGTERM, &g_previous_term, nullptr);
    ::sigaction(SIGINT, &g_previous_int, nullptr);
    ::sigaction(SIGUSR1, &g_previous_usr1, nullptr);
    ::close(g_pipe[0]);
    ::close(g_pipe[1]);
    g_pipe[0] = g_pipe[1] = -1;
    g_installed = false;
}

int TerminationSignals::wait_fd() const noexcept { return g_pipe[0]; }

bool TerminationSignals::requested() const noexcept { return g_first_signal.load() != 0; }

int TerminationSignals::signal_number() const noexcept { return g_first_signal.load(); }

}  // namespace fhmoe::cluster
