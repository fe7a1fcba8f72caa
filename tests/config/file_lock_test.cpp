#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "config/config_test_support.hpp"
#include "fhmoe/config/file_error.hpp"
#include "fhmoe/config/file_lock.hpp"
#include "fhmoe/config/tuned_csv_update.hpp"

namespace fhmoe::config {
namespace {

using namespace std::chrono_literals;
using Entries = std::vector<std::string>;
using ::testing::HasSubstr;

std::string acquire_error(const std::string& guarded, std::chrono::milliseconds timeout) {
    try {
        FileLock lock = FileLock::acquire(guarded, timeout);
    } catch (const LockTimeoutError& error) {
        return error.what();
    }
    return "(acquired)";
}

// A lock file as this process would write it, with one field changed by `edit`.
template <typename Edit>
std::string forged_lock(Edit edit) {
    LockOwner owner = current_lock_owner();
    edit(owner);
    return format_lock_owner(owner);
}

TEST(FileLock, WritesItsOwnerAndReleases) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    {
        FileLock lock = FileLock::acquire(csv, 0ms);
        EXPECT_EQ(lock.lock_path(), csv + ".lock");
        const auto owner = parse_lock_owner(testing::read_file(lock.lock_path()));
        ASSERT_TRUE(owner.has_value());
        EXPECT_EQ(*owner, lock.owner());
        EXPECT_EQ(owner->pid, ::getpid());
        EXPECT_EQ(owner->start_time, process_start_time(::getpid()).value());
        EXPECT_EQ(owner->nonce.size(), 32u);
        EXPECT_EQ(judge_lock_holder(owner).verdict, HolderVerdict::alive);
        EXPECT_EQ(dir.entries(), Entries{"tuned.csv.lock"});  // no content file left behind
    }
    EXPECT_TRUE(dir.entries().empty());
}

TEST(FileLock, NoncesDifferBetweenAcquisitions) {
    testing::TempDir dir;
    std::string first;
    {
        FileLock lock = FileLock::acquire(dir.file("t.csv"), 0ms);
        first = lock.owner().nonce;
    }
    FileLock lock = FileLock::acquire(dir.file("t.csv"), 0ms);
    EXPECT_NE(lock.owner().nonce, first);
}

TEST(FileLock, LiveHolderMakesTheWaiterTimeOutNamingIt) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    testing::HelperProcess holder({"hold-lock", csv});
    ASSERT_EQ(holder.read_line(), "locked " + std::to_string(holder.pid()));

    const std::string message = acquire_error(csv, 100ms);
    EXPECT_THAT(message, HasSubstr("held by pid " + std::to_string(holder.pid()) + " on host "));
    EXPECT_THAT(message, HasSubstr("is running"));
    EXPECT_THAT(message, HasSubstr("gave up after 100 ms"));

    holder.close_stdin();  // the holder releases and exits
    const int status = holder.wait();
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    FileLock lock = FileLock::acquire(csv, 0ms);
    EXPECT_TRUE(lock.held());
}

TEST(FileLock, HolderKilledWithSigkillIsBrokenAndTheNextWriterProceeds) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    testing::HelperProcess holder({"hold-lock", csv});
    ASSERT_EQ(holder.read_line(), "locked " + std::to_string(holder.pid()));
    holder.kill(SIGKILL);
    const int status = holder.wait();
    ASSERT_TRUE(WIFSIGNALED(status));
    ASSERT_EQ(WTERMSIG(status), SIGKILL);
    ASSERT_TRUE(testing::file_exists(csv + ".lock"));  // the dead holder never released

    const std::vector<TunedRow> rows{
        testing::sample_row(testing::gfx950(), testing::dsv4_shape(4))};
    const TunedCsvUpdate update = update_tuned_csv(csv, rows, 2s);
    EXPECT_TRUE(update.written);
    EXPECT_EQ(read_tuned_csv(csv).records.size(), 1u);
    // Broken, moved aside and removed: only the CSV and the (empty) break guard remain.
    EXPECT_EQ(dir.entries(), (Entries{"tuned.csv", "tuned.csv.lock.break"}));
}

TEST(FileLock, HolderKilledButNotYetReapedIsBroken) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    testing::HelperProcess holder({"hold-lock", csv});
    ASSERT_EQ(holder.read_line(), "locked " + std::to_string(holder.pid()));
    holder.kill(SIGKILL);
    holder.wait_until_zombie();
    const auto judged = judge_lock_holder(parse_lock_owner(testing::read_file(csv + ".lock")));
    EXPECT_EQ(judged.verdict, HolderVerdict::stale);
    EXPECT_THAT(judged.reason, HasSubstr("zombie"));
    FileLock lock = FileLock::acquire(csv, 0ms);
    EXPECT_TRUE(lock.held());
    holder.wait();
}

TEST(FileLock, ReusedPidIsDetectedByItsStartTime) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    // This process is alive, but it is not the process that wrote the lock.
    testing::write_file(csv + ".lock",
                        forged_lock([](LockOwner& owner) { owner.start_time += 1; }));
    EXPECT_EQ(judge_lock_holder(parse_lock_owner(testing::read_file(csv + ".lock"))).verdict,
              HolderVerdict::stale);
    FileLock lock = FileLock::acquire(csv, 0ms);
    EXPECT_EQ(parse_lock_owner(testing::read_file(csv + ".lock")), lock.owner());
}

TEST(FileLock, LockFromBeforeARebootIsBroken) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    testing::write_file(csv + ".lock", forged_lock([](LockOwner& owner) {
                            owner.boot_id = "00000000-0000-0000-0000-000000000000";
                        }));
    FileLock lock = FileLock::acquire(csv, 0ms);
    EXPECT_TRUE(lock.held());
}

TEST(FileLock, LockOfAnotherHostIsNeverBroken) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    const std::string foreign = forged_lock([](LockOwner& owner) {
        owner.host = "other-node-17";
        owner.pid = 4242;
    });
    testing::write_file(csv + ".lock", foreign);
    const std::string message = acquire_error(csv, 50ms);
    EXPECT_THAT(message, HasSubstr(csv + ".lock: held by pid 4242 on host other-node-17"));
    EXPECT_THAT(message, HasSubstr("never broken automatically"));
    EXPECT_THAT(message, HasSubstr("delete " + csv + ".lock by hand"));
    EXPECT_EQ(testing::read_file(csv + ".lock"), foreign);
}

TEST(FileLock, LockOfAnotherPidNamespaceIsNeverBroken) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    testing::write_file(csv + ".lock",
                        forged_lock([](LockOwner& owner) { owner.pid_namespace = "pid:[1]"; }));
    EXPECT_THAT(acquire_error(csv, 0ms), HasSubstr("another pid namespace"));
}

TEST(FileLock, UnreadableLockIsNeverBroken) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    for (const std::string content : {"", "1234\nnode\n", "fhmoe-tune lock v1\npid=x\n"}) {
        testing::write_file(csv + ".lock", content);
        EXPECT_THAT(acquire_error(csv, 0ms), HasSubstr("held by an unreadable holder"));
        EXPECT_EQ(testing::read_file(csv + ".lock"), content);
    }
}

TEST(FileLock, LeftoverFilesOfCrashedAttemptsDoNotWedgeIt) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    for (const char* leftover :
         {".lock.break", ".lock.steal", ".lock.0123.tmp", ".lock.stale.4567"}) {
        testing::write_file(csv + leftover, "left by a crash\n");
    }
    testing::write_file(csv + ".lock",
                        forged_lock([](LockOwner& owner) { owner.start_time += 1; }));
    FileLock lock = FileLock::acquire(csv, 0ms);
    EXPECT_TRUE(lock.held());
}

TEST(FileLock, FailureToWriteTheLockLeavesNoLock) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    const int status = testing::run_in_child([&csv] {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{16, 16};  // shorter than any lock content
        if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
        try {
            FileLock lock = FileLock::acquire(csv, 0ms);
        } catch (const FileError& error) {
            return std::string(error.what()).find("writing the lock's content") != std::string::npos
                       ? 0
                       : 11;
        }
        return 12;
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_TRUE(dir.entries().empty());
}

TEST(FileLock, LostLockIsReported) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    FileLock lock = FileLock::acquire(csv, 0ms);
    ASSERT_EQ(::unlink(lock.lock_path().c_str()), 0);
    EXPECT_THROW(lock.verify_held(), FileError);
    EXPECT_THROW(lock.release(), FileError);
    EXPECT_FALSE(lock.held());
}

TEST(FileLock, ForkedChildNeverReleasesItsParentsLock) {
    testing::TempDir dir;
    const std::string csv = dir.file("t.csv");
    FileLock lock = FileLock::acquire(csv, 0ms);
    const int status = testing::run_in_child([&lock] {
        { FileLock inherited = std::move(lock); }
        return 0;
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_NO_THROW(lock.verify_held());
    EXPECT_NO_THROW(lock.release());
    EXPECT_TRUE(dir.entries().empty());
}

TEST(LockOwner, FormatAndParseRoundTrip) {
    const LockOwner owner = current_lock_owner();
    EXPECT_EQ(parse_lock_owner(format_lock_owner(owner)), owner);
    EXPECT_FALSE(parse_lock_owner(format_lock_owner(owner) + "extra=1\n").has_value());
    EXPECT_FALSE(parse_lock_owner("").has_value());
}

}  // namespace
}  // namespace fhmoe::config
