#include "tuner_harness.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/shape.hpp"

extern char** environ;

namespace fhmoe::cluster::testing {
namespace {

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<std::int64_t>(0, left.count()));
}

}  // namespace

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string fresh_directory() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "." + info->name();
    for (char& c : name) {
        if (c == '/') c = '_';
    }
    const std::filesystem::path dir =
        std::filesystem::path(FHMOE_BINARY_DIR) / "Testing" / "cluster" / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

TunerLaunch::TunerLaunch(const std::string& dir, int ranks, const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env)
    : TunerLaunch(dir, {{ranks, args}}, env) {}

TunerLaunch::TunerLaunch(const std::string& dir,
                         const std::vector<std::pair<int, std::vector<std::string>>>& apps,
                         const std::map<std::string, std::string>& env)
    : log_path_(dir + "/launch-" + std::to_string(::getpid()) + "-" +
                std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) +
                ".log"),
      started_(std::chrono::steady_clock::now()) {
    std::vector<std::string> argv = {FHMOE_MPIEXEC, "--oversubscribe", "--allow-run-as-root"};
    for (std::size_t i = 0; i < apps.size(); ++i) {
        if (i > 0) argv.push_back(":");
        argv.insert(argv.end(), {"-n", std::to_string(apps[i].first), FHMOE_TUNE_MPI});
        argv.insert(argv.end(), apps[i].second.begin(), apps[i].second.end());
    }
    std::vector<char*> argv_c;
    for (auto& arg : argv) argv_c.push_back(arg.data());
    argv_c.push_back(nullptr);

    std::vector<std::string> environment;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry(*e);
        const std::string name = entry.substr(0, entry.find('='));
        if (env.count(name) == 0) environment.push_back(entry);
    }
    for (const auto& [name, value] : env) environment.push_back(name + "=" + value);
    environment.push_back("OMPI_ALLOW_RUN_AS_ROOT=1");
    environment.push_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
    std::vector<char*> env_c;
    for (auto& entry : environment) env_c.push_back(entry.data());
    env_c.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    const int rc = ::posix_spawn(&pid_, argv_c[0], &actions, nullptr, argv_c.data(), env_c.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw Error("cannot start mpiexec: " + std::string(std::strerror(rc)));
}

TunerLaunch::~TunerLaunch() {
    if (pid_ <= 0) return;
    for (pid_t rank : rank_pids()) ::kill(rank, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
}

TunerExit TunerLaunch::wait(std::chrono::seconds limit) {
    TunerExit result;
    const auto deadline = started_ + limit;
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
        if (remaining_ms(deadline) == 0) {
            ADD_FAILURE() << "fhmoe_tune_mpi did not finish within " << limit.count() << " s";
            for (pid_t rank : rank_pids()) ::kill(rank, SIGKILL);
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, &status, 0);
            break;
        }
        pollfd fd{pidfd, POLLIN, 0};
        ::poll(&fd, pidfd >= 0 ? 1 : 0, std::min(remaining_ms(deadline), pidfd >= 0 ? 60000 : 20));
    }
    if (pidfd >= 0) ::close(pidfd);
    pid_ = -1;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    result.log = read_file(log_path_);
    return result;
}

std::vector<pid_t> TunerLaunch::rank_pids() const {
    std::vector<pid_t> pids;
    if (pid_ <= 0) return pids;
    const std::string children =
        read_file("/proc/" + std::to_string(pid_) + "/task/" + std::to_string(pid_) + "/children");
    std::istringstream in(children);
    pid_t child = 0;
    while (in >> child) {
        const std::string comm = read_file("/proc/" + std::to_string(child) + "/comm");
        if (comm.rfind("fhmoe_tune_mpi", 0) == 0) pids.push_back(child);
    }
    return pids;
}

void TunerLaunch::signal_ranks(int signal_number) const {
    for (pid_t rank : rank_pids()) ::kill(rank, signal_number);
}

TunerExit run_tuner(const std::string& dir, int ranks, const std::vector<std::string>& args,
                    const std::map<std::string, std::string>& env, std::chrono::seconds limit) {
    TunerLaunch launch(dir, ranks, args, env);
    return launch.wait(limit);
}

std::map<std::string, std::string> tuned_choices(const std::string& tuned_csv) {
    std::map<std::string, std::string> choices;
    for (const auto& record : config::read_tuned_csv(tuned_csv).records) {
        const auto& row = record.row;
        choices[std::to_string(row.shape.token) + "/" +
                std::string(family::to_aiter_string(row.shape.gate_mode))] =
            std::to_string(row.block_m) + " " + row.kernel_name1 + " " + row.kernel_name2;
    }
    return choices;
}

std::map<std::string, std::string> tuned_choices_if_any(const std::string& tuned_csv) {
    if (!std::filesystem::exists(tuned_csv)) return {};
    return tuned_choices(tuned_csv);
}

JournalFacts read_journal_facts(const std::string& path) {
    const auto contents = evidence::read_journal(path);
    JournalFacts facts;
    facts.header = contents.header;
    facts.records = contents.records.size() + 1;
    for (const auto& record : contents.records) {
        if (const auto* result = std::get_if<evidence::CandidateResultRecord>(&record)) {
            if (tuning::is_terminal(result->result.status)) {
                ++facts.terminal_records[result->result.shape_key][result->result.candidate.key()];
            }
        } else if (const auto* decision = std::get_if<evidence::ShapeDecision>(&record)) {
            if (decision->kind != evidence::DecisionKind::incomplete) {
                facts.final_decisions[decision->shape_key].push_back(*decision);
            }
        }
    }
    return facts;
}

bool wait_for_journal(const std::string& path,
                      const std::function<bool(const JournalFacts&)>& reached,
                      std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const int watch = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    ::inotify_add_watch(watch, dir.c_str(), IN_MODIFY | IN_CREATE | IN_CLOSE_WRITE);
    bool done = false;
    while (!done && remaining_ms(deadline) > 0) {
        try {
            if (std::filesystem::exists(path)) done = reached(read_journal_facts(path));
        } catch (const Error&) {
            // Being written (created, its header not yet there): look again at the next change.
        }
        if (done) break;
        // Woken by the next write to the directory: no timer decides when to look.
        pollfd fd{watch, POLLIN, 0};
        ::poll(&fd, 1, remaining_ms(deadline));
        char drain[4096];
        while (::read(watch, drain, sizeof(drain)) > 0) {
        }
    }
    ::close(watch);
    return done;
}

bool wait_for_journal_records(const std::string& path, std::size_t records,
                              std::chrono::seconds limit) {
    return wait_for_journal(
        path, [records](const JournalFacts& facts) { return facts.records >= records; }, limit);
}

void expect_each_candidate_once(const JournalFacts& facts) {
    for (const auto& planned : facts.header.shapes) {
        const std::string shape = family::shape_key_string(planned.shape);
        const auto found = facts.terminal_records.find(shape);
        ASSERT_NE(found, facts.terminal_records.end()) << shape << " has no result at all";
        for (std::size_t i = 0; i < planned.candidates.size(); ++i) {
            const std::string key = family::candidate_key(planned.candidates[i]);
            const auto count = found->second.count(key) ? found->second.at(key) : 0;
            if (static_cast<std::int64_t>(i) == planned.incumbent_index) {
                EXPECT_GE(count, 1) << shape << ": the incumbent was never measured";
            } else {
                EXPECT_EQ(count, 1) << shape << " candidate " << key;
            }
        }
    }
}

std::vector<std::string> small_run_args(const std::string& dir, const std::string& backend,
                                        int sample, std::uint64_t seed) {
    return {"-i",
            std::string(FHMOE_SOURCE_DIR) + "/configs/untuned_fhmoe_small.csv",
            "-o",
            dir + "/tuned.csv",
            "--journal",
            dir + "/journal.bin",
            "--backend",
            backend,
            "--candidate-sample",
            std::to_string(sample),
            "--seed",
            std::to_string(seed),
            "--warmup",
            "1",
            "--iters",
            backend == "sim" ? "10" : "3",
            "--rounds",
            "3",
            "--finalists",
            "2",
            "--status-interval",
            "5"};
}

}  // namespace fhmoe::cluster::testing
