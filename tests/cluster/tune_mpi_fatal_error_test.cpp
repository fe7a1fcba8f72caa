// Fatal errors after start-up (issue #12, item 2): whichever rank fails, every rank ends
// within seconds with the documented exit code, and the outputs that existed before the run
// are byte-identical afterwards. Real processes under the real mpiexec, a real full
// filesystem (a small tmpfs: needs root, skipped with the reason otherwise), a real missing
// worker program.

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

constexpr int kRanks = 4;
constexpr std::uint64_t kSeed = 13;
// The old behaviour was a hang until the launcher was killed: a bound far below that but
// well above a loaded CI machine's start-up time.
constexpr auto kEndsWithin = std::chrono::seconds(60);

// A tuned CSV and an archive from an earlier, finished run: the outputs a failed run must
// leave exactly as they were.
struct EarlierOutputs {
    std::string tuned_csv;
    std::string archive;
};

EarlierOutputs earlier_outputs(const std::string& base) {
    const std::string dir = base + "/earlier";
    std::filesystem::create_directories(dir);
    auto args = small_run_args(dir, "sim", 6, kSeed);
    args.insert(args.end(), {"--evidence", dir + "/evidence.h5"});
    const TunerExit finished = run_tuner(dir, 2, args);
    EXPECT_EQ(finished.exit_code, 0) << finished.log;
    return {read_file(dir + "/tuned.csv"), read_file(dir + "/evidence.h5")};
}

void place_outputs(const std::string& dir, const EarlierOutputs& outputs) {
    std::ofstream(dir + "/tuned.csv", std::ios::binary) << outputs.tuned_csv;
    std::ofstream(dir + "/evidence.h5", std::ios::binary) << outputs.archive;
}

void expect_outputs_untouched(const std::string& dir, const EarlierOutputs& outputs) {
    EXPECT_TRUE(read_file(dir + "/tuned.csv") == outputs.tuned_csv) << "tuned CSV changed";
    EXPECT_TRUE(read_file(dir + "/evidence.h5") == outputs.archive) << "archive changed";
}

// A tmpfs of `bytes` at `path`, unmounted when the test ends.
class SmallTmpfs {
public:
    SmallTmpfs(const std::string& path, std::size_t bytes) : path_(path) {
        std::filesystem::create_directories(path);
        const std::string options = "size=" + std::to_string(bytes);
        if (::mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) == 0) {
            mounted_ = true;
        } else {
            why_not_ = std::strerror(errno);
        }
    }
    ~SmallTmpfs() {
        if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
    }
    bool mounted() const { return mounted_; }
    const std::string& why_not() const { return why_not_; }

private:
    std::string path_;
    bool mounted_ = false;
    std::string why_not_;
};

TEST(TuneMpiFatalError, JournalFullOnRankZeroEndsEveryRankWithExitTwo) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs (a real full disk) needs root";
    const std::string base = fresh_directory();
    const EarlierOutputs outputs = earlier_outputs(base);
    const std::string dir = base + "/full";
    std::filesystem::create_directories(dir);
    place_outputs(dir, outputs);
    // Room for the plan and the first results, not for the whole run: the journal hits
    // ENOSPC while every rank is measuring.
    SmallTmpfs full(dir + "/small-disk", 24 * 1024);
    if (!full.mounted()) GTEST_SKIP() << "cannot mount a tmpfs: " << full.why_not();

    auto args = small_run_args(dir, "sim", 48, kSeed);
    for (auto& arg : args) {
        if (arg == dir + "/journal.bin") arg = dir + "/small-disk/journal.bin";
    }
    args.insert(args.end(), {"--evidence", dir + "/evidence.h5", "--all"});
    const TunerExit exit = run_tuner(dir, kRanks, args, {}, kEndsWithin);
    EXPECT_EQ(exit.exit_code, 2) << exit.log;
    EXPECT_NE(exit.log.find("No space left on device"), std::string::npos) << exit.log;
    EXPECT_NE(exit.log.find("stopping the other 3 ranks"), std::string::npos) << exit.log;
    // It really was mid-run: results had been journaled before the disk filled.
    EXPECT_GT(evidence::read_journal(dir + "/small-disk/journal.bin").records.size(), 2U);
    expect_outputs_untouched(dir, outputs);
}

// Writes `path` until its file system has no byte left.
void fill(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    const std::string block(4096, 'f');
    while (std::fwrite(block.data(), 1, block.size(), file) == block.size() &&
           std::fflush(file) == 0) {
    }
    std::fclose(file);
}

// A journal that already holds a session's results, resumed on a disk that has filled since:
// the resume ends at once with exit 2, every byte the journal held is still there (a failed
// append may leave a torn tail, which the next resume cuts), the tuned CSV and the archive
// of the earlier run are byte-identical, and once there is room --resume finishes the run.
TEST(TuneMpiFatalError, AResumeOnAFullDiskKeepsTheJournalItContinues) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs (a real full disk) needs root";
    const std::string base = fresh_directory();
    const EarlierOutputs outputs = earlier_outputs(base);
    const std::string dir = base + "/resume";
    std::filesystem::create_directories(dir);
    place_outputs(dir, outputs);
    SmallTmpfs disk(dir + "/small-disk", 1024 * 1024);
    if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs: " << disk.why_not();
    const std::string journal = dir + "/small-disk/journal.bin";
    auto args = small_run_args(dir, "sim", 8, kSeed);
    for (auto& arg : args) {
        if (arg == dir + "/journal.bin") arg = journal;
    }
    args.insert(args.end(), {"--evidence", dir + "/evidence.h5", "--all"});

    // The first session: interrupted once it has journaled results (the test hook holds its
    // work there until the signal), exit 3.
    {
        TunerLaunch launch(dir, kRanks, args, {{"FHMOE_TEST_HOLD_AFTER_JOURNAL_RECORDS", "12"}});
        ASSERT_TRUE(wait_for_journal_records(journal, 12, kEndsWithin));
        launch.signal_ranks(SIGTERM);
        const TunerExit interrupted = launch.wait(kEndsWithin);
        ASSERT_EQ(interrupted.exit_code, 3) << interrupted.log;
    }
    const std::string held = read_file(journal);
    const std::string tuned_before = read_file(dir + "/tuned.csv");
    const std::string archive_before = read_file(dir + "/evidence.h5");
    fill(dir + "/small-disk/filler");

    auto resume_args = args;
    resume_args.push_back("--resume");
    const TunerExit full = run_tuner(dir, kRanks, resume_args, {}, kEndsWithin);
    EXPECT_EQ(full.exit_code, 2) << full.log;
    EXPECT_NE(full.log.find("No space left on device"), std::string::npos) << full.log;
    EXPECT_EQ(read_file(journal).substr(0, held.size()), held) << "the journal lost bytes";
    EXPECT_TRUE(read_file(dir + "/tuned.csv") == tuned_before) << "tuned CSV changed";
    EXPECT_TRUE(read_file(dir + "/evidence.h5") == archive_before) << "archive changed";

    std::filesystem::remove(dir + "/small-disk/filler");
    const TunerExit resumed = run_tuner(dir, kRanks, resume_args, {}, std::chrono::seconds(120));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
    expect_each_candidate_once(read_journal_facts(journal));
    EXPECT_EQ(tuned_choices(dir + "/tuned.csv").size(), 5U);
}

TEST(TuneMpiFatalError, AMemberRankWithoutItsWorkerProgramEndsTheRunWithExitTwo) {
    const std::string base = fresh_directory();
    const EarlierOutputs outputs = earlier_outputs(base);
    const std::string dir = base + "/member";
    std::filesystem::create_directories(dir);
    place_outputs(dir, outputs);

    // Rank 0 has its worker; ranks 1-3 name one that passes the up-front checks (a regular,
    // executable file) but cannot start: its interpreter is not on "their node". They fail
    // when their first chunk starts, after start-up, while rank 0 measures. (A missing worker
    // is refused before anything runs: cluster_tune_mpi_paths_test.)
    auto args = small_run_args(dir, "sim", 8, kSeed);
    args.insert(args.end(), {"--evidence", dir + "/evidence.h5", "--all"});
    const std::string broken_worker = dir + "/broken-worker";
    {
        std::ofstream script(broken_worker);
        script << "#!/nonexistent/fhmoe-interpreter\n";
    }
    std::filesystem::permissions(broken_worker, std::filesystem::perms::owner_all);
    auto member_args = args;
    member_args.insert(member_args.end(), {"--worker", broken_worker});
    TunerLaunch launch(dir, {{1, args}, {kRanks - 1, member_args}});
    const TunerExit exit = launch.wait(kEndsWithin);
    EXPECT_EQ(exit.exit_code, 2) << exit.log;
    EXPECT_NE(exit.log.find("cannot start the worker"), std::string::npos) << exit.log;
    EXPECT_NE(exit.log.find("failed (exit 2)"), std::string::npos) << exit.log;
    // Rank 0 checkpointed before it stopped: its journal says how the session ended.
    const auto contents = evidence::read_journal(dir + "/journal.bin");
    ASSERT_FALSE(contents.records.empty());
    const auto* ended = std::get_if<evidence::SessionEndedRecord>(&contents.records.back());
    ASSERT_NE(ended, nullptr);
    EXPECT_EQ(ended->exit_status, 2);
    EXPECT_TRUE(read_file(dir + "/tuned.csv") == outputs.tuned_csv) << "tuned CSV changed";
}

}  // namespace
}  // namespace fhmoe::cluster::testing
