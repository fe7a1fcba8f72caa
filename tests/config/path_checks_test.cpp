// The up-front checks of a run's files, on real files: symlinks, hard links, "./" spellings,
// directories and programs without an execute bit. (Read-only mounts and full disks are
// tested with the real tuner: tests/cluster/tune_mpi_paths_test.cpp.)

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "config/config_test_support.hpp"
#include "fhmoe/config/path_checks.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

std::string refusal(const std::function<void()>& check) {
    try {
        check();
    } catch (const InputError& error) {
        return error.what();
    }
    return "(accepted)";
}

std::string distinct(const std::vector<FlagPath>& outputs, const std::vector<FlagPath>& inputs) {
    return refusal([&] { check_distinct_files(outputs, inputs); });
}

TEST(PathChecks, TwoOutputsNamingOneFileAreRefusedHoweverSpelled) {
    testing::TempDir dir;
    const std::string csv = dir.file("tuned.csv");
    testing::write_file(csv, "old");
    ASSERT_EQ(::symlink(csv.c_str(), dir.file("link.csv").c_str()), 0);
    ASSERT_EQ(::link(csv.c_str(), dir.file("hard.csv").c_str()), 0);

    for (const std::string& other :
         {csv, dir.path() + "/./tuned.csv", dir.path() + "/sub/../tuned.csv", dir.file("link.csv"),
          dir.file("hard.csv")}) {
        SCOPED_TRACE(other);
        if (other.find("/sub/") != std::string::npos) ::mkdir(dir.file("sub").c_str(), 0755);
        const std::string message = distinct({{"-o/--tune_file", csv}, {"--evidence", other}}, {});
        EXPECT_NE(message.find("field '--evidence': names the same file as -o/--tune_file"),
                  std::string::npos)
            << message;
    }
    EXPECT_EQ(distinct({{"-o/--tune_file", csv}, {"--evidence", dir.file("e.h5")}}, {}),
              "(accepted)");
}

TEST(PathChecks, FilesNotYetWrittenAreComparedByTheirResolvedPath) {
    testing::TempDir dir;
    ASSERT_EQ(::symlink(dir.path().c_str(), dir.file("alias").c_str()), 0);
    const std::string message = distinct(
        {{"--journal", dir.file("run.journal")}, {"--evidence", dir.file("alias/run.journal")}},
        {});
    EXPECT_NE(message.find("field '--evidence': names the same file as --journal"),
              std::string::npos)
        << message;
    EXPECT_EQ(distinct({{"--journal", dir.file("a")}, {"--evidence", dir.file("b")}}, {}),
              "(accepted)");
}

TEST(PathChecks, AnOutputNamingAnInputIsRefused) {
    testing::TempDir dir;
    testing::write_file(dir.file("untuned.csv"), "token\n1\n");
    const std::string message = distinct({{"--summary-json", dir.file("./untuned.csv")}},
                                         {{"-i/--untune_file", dir.file("untuned.csv")}});
    EXPECT_NE(message.find("field '--summary-json': names the same file as -i/--untune_file"),
              std::string::npos)
        << message;
}

TEST(PathChecks, OutputsNeedAnExistingWritableDirectoryAndNoDirectoryInTheirPlace) {
    testing::TempDir dir;
    EXPECT_EQ(refusal([&] { check_output_file({"--evidence", dir.file("x.h5")}); }), "(accepted)");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{}) << "the probe file is removed";

    const std::string missing = refusal([&] {
        check_output_file({"-o/--tune_file", dir.file("nodir/sub/tuned.csv")});
    });
    EXPECT_NE(missing.find("nodir/sub/tuned.csv: field '-o/--tune_file': its directory"),
              std::string::npos)
        << missing;
    EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;

    ::mkdir(dir.file("d").c_str(), 0755);
    const std::string is_dir = refusal([&] { check_output_file({"--evidence", dir.file("d")}); });
    EXPECT_NE(is_dir.find("field '--evidence': is a directory"), std::string::npos) << is_dir;
}

TEST(PathChecks, InputsMustExistAndProgramsMustBeExecutable) {
    testing::TempDir dir;
    const std::string missing = refusal([&] {
        check_input_file({"-i/--untune_file", dir.file("none.csv")});
    });
    EXPECT_NE(missing.find("field '-i/--untune_file': does not exist"), std::string::npos)
        << missing;
    EXPECT_EQ(refusal([&] {
                  check_input_file_if_exists({"-o/--tune_file", dir.file("n.csv")});
              }),
              "(accepted)");

    const std::string program = dir.file("worker");
    testing::write_file(program, "#!/bin/sh\n");
    ASSERT_EQ(::chmod(program.c_str(), 0644), 0);
    const std::string not_executable = refusal([&] {
        check_executable_file({"--worker", program});
    });
    EXPECT_NE(not_executable.find("field '--worker': is not executable"), std::string::npos)
        << not_executable;
    ASSERT_EQ(::chmod(program.c_str(), 0755), 0);
    EXPECT_EQ(refusal([&] { check_executable_file({"--worker", program}); }), "(accepted)");
    EXPECT_NE(refusal([&] {
                  check_executable_file({"--worker", "/nonexistent"});
              }).find("/nonexistent: field '--worker': does not exist"),
              std::string::npos);
}

}  // namespace
}  // namespace fhmoe::config
