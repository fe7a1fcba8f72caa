#pragma once

// Shared by the config tests: a fresh temporary directory per test, whole-file I/O, sample
// rows, and child processes (the helper binary) talked to over pipes.

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::config::testing {

// mkdtemp under $TMPDIR (or /tmp); removed with its contents when destroyed.
class TempDir {
public:
    TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir();

    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    std::vector<std::string> entries() const;  // names in the directory, sorted

private:
    std::string path_;
};

void write_file(const std::string& path, const std::string& contents);
std::string read_file(const std::string& path);
bool file_exists(const std::string& path);

// The DSV4 I384 shape of aiter's tuned_fhmoe.csv at `token`.
family::ShapeKey dsv4_shape(std::int64_t token);
family::DeviceKey gfx950();
// A complete, valid row for `shape` on `device`.
TunedRow sample_row(const family::DeviceKey& device, const family::ShapeKey& shape,
                    const std::string& kernel_suffix = "a");

// A child running the helper binary (tests/config/config_test_helper.cpp) with pipes to
// its stdin and from its stdout.
class HelperProcess {
public:
    explicit HelperProcess(const std::vector<std::string>& arguments);
    HelperProcess(const HelperProcess&) = delete;
    HelperProcess& operator=(const HelperProcess&) = delete;
    ~HelperProcess();  // kills (SIGKILL) and reaps a child still running

    pid_t pid() const { return pid_; }
    std::string read_line();  // blocks until a full line (without '\n') or EOF
    void write_stdin(const std::string& data);
    void close_stdin();
    void kill(int signal_number);
    // Blocks until the child exits and reaps it; the raw wait status.
    int wait();
    // Blocks until the child has exited but leaves it a zombie (waitid WNOWAIT).
    void wait_until_zombie();
    // The caller reaped the child itself (waitpid WNOHANG): the destructor must not.
    void mark_reaped() { reaped_ = true; }

private:
    pid_t pid_ = -1;
    int stdin_fd_ = -1;
    int stdout_fd_ = -1;
    bool reaped_ = false;
};

// The helper binary's path (built next to the tests).
std::string helper_path();

// Runs `body` in a forked child (no exec) and returns its exit status; the body's return
// value is the exit code. For tests that change process-wide limits (RLIMIT_FSIZE).
int run_in_child(const std::function<int()>& body);

}  // namespace fhmoe::config::testing
