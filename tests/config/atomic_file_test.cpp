#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "config/config_test_support.hpp"
#include "fhmoe/config/atomic_file.hpp"
#include "fhmoe/config/file_error.hpp"

namespace fhmoe::config {
namespace {

using Entries = std::vector<std::string>;

TEST(AtomicFile, CreatesAndReplacesLeavingNoTemporaryFile) {
    testing::TempDir dir;
    const std::string path = dir.file("out.csv");
    write_file_atomically(path, "first\n");
    EXPECT_EQ(testing::read_file(path), "first\n");
    write_file_atomically(path, "second\n");
    EXPECT_EQ(testing::read_file(path), "second\n");
    EXPECT_EQ(dir.entries(), Entries{"out.csv"});
}

TEST(AtomicFile, KeepsTheDestinationsPermissions) {
    testing::TempDir dir;
    const std::string path = dir.file("out.csv");
    testing::write_file(path, "old");
    ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
    write_file_atomically(path, "new");
    struct stat info {};
    ASSERT_EQ(::stat(path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0640u);
}

TEST(AtomicFile, MissingDirectoryFailsWithoutCreatingAnything) {
    testing::TempDir dir;
    EXPECT_THROW(write_file_atomically(dir.file("no/such/dir/out.csv"), "x"), FileError);
    EXPECT_TRUE(dir.entries().empty());
}

TEST(AtomicFile, FailedRenameLeavesDestinationAndRemovesTemporary) {
    testing::TempDir dir;
    const std::string path = dir.file("taken");
    ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
    testing::write_file(path + "/inside", "kept");
    EXPECT_THROW(write_file_atomically(path, "x"), FileError);
    EXPECT_EQ(testing::read_file(path + "/inside"), "kept");
    EXPECT_EQ(dir.entries(), Entries{"taken"});
}

TEST(AtomicFile, ThrowingBeforeCommitReplacesNothing) {
    testing::TempDir dir;
    const std::string path = dir.file("out.csv");
    testing::write_file(path, "old");
    EXPECT_THROW(write_file_atomically(path, "new", [] { throw std::runtime_error("lock lost"); }),
                 std::runtime_error);
    EXPECT_EQ(testing::read_file(path), "old");
    EXPECT_EQ(dir.entries(), Entries{"out.csv"});
}

// A real write failure: the file-size limit makes write(2) fail with EFBIG part way
// through the temporary file. It runs in a child so the limit does not touch this process.
TEST(AtomicFile, WriteFailureLeavesDestinationAndRemovesTemporary) {
    testing::TempDir dir;
    const std::string path = dir.file("out.csv");
    testing::write_file(path, "old contents");
    const int status = testing::run_in_child([&path] {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{100, 100};
        if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 10;
        try {
            write_file_atomically(path, std::string(4096, 'x'));
        } catch (const FileError& error) {
            return std::string(error.what()).find("writing: File too large") != std::string::npos
                       ? 0
                       : 11;
        }
        return 12;
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    EXPECT_EQ(testing::read_file(path), "old contents");
    EXPECT_EQ(dir.entries(), Entries{"out.csv"});
}

}  // namespace
}  // namespace fhmoe::config
