#include "config/config_test_support.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "fhmoe/family/builtin_shapes.hpp"

extern char** environ;

namespace fhmoe::config::testing {
namespace {

[[noreturn]] void fail_system(const std::string& what) {
    throw std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

TempDir::TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/fhmoe_config_XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) fail_system("mkdtemp " + pattern);
    path_ = pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::entries() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

void write_file(const std::string& path, const std::string& contents) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << contents;
    if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream contents;
    contents << in.rdbuf();
    return contents.str();
}

bool file_exists(const std::string& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0;
}

family::ShapeKey dsv4_shape(std::int64_t token) { return family::dsv4_i384_shape(token); }

family::DeviceKey gfx950() { return family::DeviceKey{"gfx950", 256}; }

TunedRow sample_row(const family::DeviceKey& device, const family::ShapeKey& shape,
                    const std::string& kernel_suffix) {
    TunedRow row;
    row.device = device;
    row.shape = shape;
    row.block_m = 32;
    row.ksplit = 0;
    row.kernel_name1 = "flydsl_moe1_afp8_wfp4_bf16_t32x64x256_w4_gui_" + kernel_suffix;
    row.kernel_name2 = "flydsl_moe2_afp8_wfp4_bf16_t32x256x128_atomic_" + kernel_suffix;
    row.us = 12.5;
    row.err = 0.001;
    return row;
}

HelperProcess::HelperProcess(const std::vector<std::string>& arguments) {
    int to_child[2];
    int from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0) fail_system("pipe");
    if (::pipe2(from_child, O_CLOEXEC) != 0) fail_system("pipe");

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);

    std::vector<std::string> argv_storage{helper_path()};
    argv_storage.insert(argv_storage.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& argument : argv_storage) argv.push_back(argument.data());
    argv.push_back(nullptr);

    const int error = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    stdin_fd_ = to_child[1];
    stdout_fd_ = from_child[0];
    if (error != 0) {
        errno = error;
        fail_system("posix_spawn " + argv_storage[0]);
    }
}

HelperProcess::~HelperProcess() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    if (pid_ > 0 && !reaped_) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
}

std::string HelperProcess::read_line() {
    std::string line;
    char c = 0;
    while (true) {
        const ssize_t got = ::read(stdout_fd_, &c, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0 || c == '\n') return line;
        line += c;
    }
}

void HelperProcess::write_stdin(const std::string& data) {
    if (::write(stdin_fd_, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
        fail_system("writing to the helper");
    }
}

void HelperProcess::close_stdin() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    stdin_fd_ = -1;
}

void HelperProcess::kill(int signal_number) {
    if (::kill(pid_, signal_number) != 0) fail_system("kill");
}

void HelperProcess::wait_until_zombie() {
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0) {
        if (errno != EINTR) fail_system("waitid");
    }
}

int HelperProcess::wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0) {
        if (errno != EINTR) fail_system("waitpid");
    }
    reaped_ = true;
    return status;
}

std::string helper_path() { return FHMOE_CONFIG_TEST_HELPER; }

int run_in_child(const std::function<int()>& body) {
    const pid_t pid = ::fork();
    if (pid < 0) fail_system("fork");
    if (pid == 0) {
        int code = 99;
        try {
            code = body();
        } catch (...) {
            code = 98;
        }
        ::_exit(code);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) fail_system("waitpid");
    }
    return status;
}

}  // namespace fhmoe::config::testing
