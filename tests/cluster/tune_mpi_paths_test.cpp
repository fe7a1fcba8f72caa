// Issue #12: never lose or clobber a file. The real fhmoe_tune_mpi under the real mpiexec:
// every path is checked before any worker starts (exit 2 naming the flag and the path, every
// file that was there byte-identical afterwards), and a requested output that cannot be
// written, on a real full file system, is a documented non-zero exit, not a crash or a 0.

#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

namespace fs = std::filesystem;

// Every file under `root` with its bytes (a symlink by its target), to show that a refused
// run changed nothing.
std::map<std::string, std::string> files_under(const std::string& root) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        const std::string name = fs::relative(entry.path(), root).string();
        if (entry.is_symlink()) {
            files[name] = "-> " + fs::read_symlink(entry.path()).string();
        } else if (entry.is_regular_file()) {
            files[name] = read_file(entry.path().string());
        } else {
            files[name] = "(directory)";
        }
    }
    return files;
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// The tuner's arguments with every file under `run`; a journal that does not exist yet, so
// that a refusal is the path check's and not the existing-journal check's.
std::vector<std::string> run_args(const std::string& run) {
    return {"-i",
            run + "/untuned.csv",
            "-o",
            run + "/tuned.csv",
            "--journal",
            run + "/new.journal",
            "--backend",
            "sim",
            "--candidate-sample",
            "4",
            "--seed",
            "1",
            "--warmup",
            "1",
            "--iters",
            "10",
            "--rounds",
            "3",
            "--finalists",
            "2"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// Replaces the value of `flag` in `args`.
std::vector<std::string> replacing(std::vector<std::string> args, const std::string& flag,
                                   const std::string& value) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == flag) args[i + 1] = value;
    }
    return args;
}

// A directory `run` inside a fresh test directory, holding the small shapes and the files a
// night before left: a tuned CSV and an archive (the tuner's launch log stays outside it).
std::string prepared_run_directory() {
    const std::string run = fresh_directory() + "/run";
    fs::create_directories(run);
    fs::copy_file(std::string(FHMOE_SOURCE_DIR) + "/configs/untuned_fhmoe_small.csv",
                  run + "/untuned.csv");
    // A real tuned CSV (aiter's rows, read as incumbents): a refusal must not come from it.
    fs::copy_file(std::string(FHMOE_SOURCE_DIR) + "/tests/data/aiter_tuned_fhmoe.csv",
                  run + "/tuned.csv");
    write_text(run + "/evidence.h5", "the archive of last night\n");
    return run;
}

struct RefusedCase {
    std::vector<std::string> args;
    std::vector<std::string> expected_in_log;
};

// Each case: exit 2, the log names what is expected, and no file under `run` changed.
void expect_refused_untouched(const std::string& run, int ranks,
                              const std::vector<RefusedCase>& cases) {
    const std::string dir = fs::path(run).parent_path().string();
    for (const RefusedCase& c : cases) {
        std::string trace;
        for (const auto& arg : c.args) trace += arg.substr(0, 200) + " ";
        SCOPED_TRACE(trace);
        const auto before = files_under(run);
        const TunerExit exit = run_tuner(dir, ranks, c.args, {}, std::chrono::seconds(60));
        EXPECT_EQ(exit.exit_code, 2) << exit.log;
        for (const std::string& text : c.expected_in_log) {
            EXPECT_NE(exit.log.find(text), std::string::npos) << "missing '" << text << "' in\n"
                                                              << exit.log;
        }
        EXPECT_EQ(files_under(run), before) << exit.log;
    }
}

TEST(TuneMpiPaths, OutputsNamingOneFileAreRefusedHoweverSpelled) {
    const std::string run = prepared_run_directory();
    ASSERT_EQ(::symlink((run + "/tuned.csv").c_str(), (run + "/link.csv").c_str()), 0);
    ASSERT_EQ(::link((run + "/tuned.csv").c_str(), (run + "/hard.csv").c_str()), 0);
    const auto args = run_args(run);
    expect_refused_untouched(
        run, 2,
        {{with(args, {"--evidence", run + "/tuned.csv"}),
          {run + "/tuned.csv: field '--evidence': names the same file as -o/--tune_file"}},
         {with(replacing(args, "--journal", run + "/run.journal"),
               {"--evidence", run + "/run.journal"}),
          {"field '--evidence': names the same file as --journal"}},
         {with(args, {"--evidence", run + "/./tuned.csv"}),
          {"field '--evidence': names the same file as -o/--tune_file"}},
         {with(args, {"--summary-json", run + "/link.csv"}),
          {"link.csv: field '--summary-json': names the same file as -o/--tune_file"}},
         {with(args, {"--evidence", run + "/hard.csv"}),
          {"hard.csv: field '--evidence': names the same file as -o/--tune_file"}},
         {with(args, {"--summary-json", run + "/../run/untuned.csv"}),
          {"field '--summary-json': names the same file as -i/--untune_file"}},
         {replacing(args, "--journal", run + "/untuned.csv"),
          {"field '--journal': names the same file as -i/--untune_file"}}});
    EXPECT_FALSE(fs::exists(run + "/new.journal"));
}

TEST(TuneMpiPaths, MissingDirectoriesFilesAndDirectoriesInPlaceOfFilesAreRefused) {
    const std::string run = prepared_run_directory();
    fs::create_directories(run + "/a_directory");
    const auto args = run_args(run);
    expect_refused_untouched(
        run, 2,
        {{replacing(args, "-o", run + "/nodir/sub/tuned.csv"),
          {"nodir/sub/tuned.csv: field '-o/--tune_file': its directory", "does not exist"}},
         {with(args, {"--evidence", run + "/nodir/x.h5"}),
          {"nodir/x.h5: field '--evidence': its directory"}},
         {with(args, {"--summary-json", run + "/nodir/s.json"}),
          {"nodir/s.json: field '--summary-json': its directory"}},
         {replacing(args, "--journal", run + "/nodir/run.journal"),
          {"nodir/run.journal: field '--journal': its directory"}},
         {with(args, {"--evidence", run + "/a_directory"}),
          {"a_directory: field '--evidence': is a directory"}},
         {replacing(args, "-i", run + "/missing.csv"),
          {"missing.csv: field '-i/--untune_file': does not exist"}},
         {with(args, {"--resume"}), {"new.journal: field '--journal': does not exist"}}});
}

TEST(TuneMpiPaths, AMissingOrNonExecutableWorkerIsRefusedOnAnyRank) {
    const std::string run = prepared_run_directory();
    write_text(run + "/not_a_program", "#!/bin/sh\nexit 0\n");
    ASSERT_EQ(::chmod((run + "/not_a_program").c_str(), 0644), 0);
    const auto args = run_args(run);
    expect_refused_untouched(run, 2,
                             {{with(args, {"--worker", "/nonexistent"}),
                               {"/nonexistent: field '--worker': does not exist"}},
                              {with(args, {"--worker", run + "/not_a_program"}),
                               {"not_a_program: field '--worker': is not executable"}}});

    // Only rank 1's worker is missing (another node's install): every rank stops, none hangs.
    const auto before = files_under(run);
    TunerLaunch launch(fs::path(run).parent_path().string(),
                       {{1, args}, {1, with(args, {"--worker", "/nonexistent"})}});
    const TunerExit exit = launch.wait(std::chrono::seconds(60));
    EXPECT_EQ(exit.exit_code, 2) << exit.log;
    EXPECT_NE(exit.log.find("/nonexistent: field '--worker': does not exist"), std::string::npos)
        << exit.log;
    EXPECT_NE(exit.log.find("another rank refused its --worker"), std::string::npos) << exit.log;
    EXPECT_EQ(files_under(run), before);
}

// A small tmpfs mounted for one test and unmounted at its end. Mounting needs root and a
// kernel that lets this process mount; without them the test is skipped, saying why.
class SmallFileSystem {
public:
    SmallFileSystem(std::string path, const std::string& size) : path_(std::move(path)) {
        fs::create_directories(path_);
        const std::string options = "size=" + size + ",mode=0755";
        if (::mount("tmpfs", path_.c_str(), "tmpfs", 0, options.c_str()) != 0) {
            why_not_ = std::string("cannot mount a tmpfs here: ") + std::strerror(errno);
        }
    }
    ~SmallFileSystem() {
        if (why_not_.empty()) ::umount2(path_.c_str(), MNT_DETACH);
    }
    SmallFileSystem(const SmallFileSystem&) = delete;
    SmallFileSystem& operator=(const SmallFileSystem&) = delete;

    bool mounted() const { return why_not_.empty(); }
    const std::string& why_not() const { return why_not_; }

    // Read-only for everyone, root included: what chmod cannot do to root.
    bool remount_read_only() {
        if (::mount(nullptr, path_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0) {
            return true;
        }
        why_not_ = std::string("cannot remount it read-only: ") + std::strerror(errno);
        return false;
    }

    // Writes `filler` until the file system has no byte left.
    void fill(const std::string& filler) const {
        std::FILE* file = std::fopen(filler.c_str(), "wb");
        ASSERT_NE(file, nullptr);
        const std::string block(4096, 'f');
        while (std::fwrite(block.data(), 1, block.size(), file) == block.size() &&
               std::fflush(file) == 0) {
        }
        std::fclose(file);
    }

private:
    std::string path_;
    std::string why_not_;
};

TEST(TuneMpiPaths, AReadOnlyDirectoryIsRefusedBeforeAnythingRuns) {
    const std::string run = prepared_run_directory();
    SmallFileSystem read_only(run + "/ro", "1m");
    if (!read_only.mounted()) GTEST_SKIP() << read_only.why_not();
    write_text(run + "/ro/tuned.csv", "the tuned CSV on a read-only mount\n");
    if (!read_only.remount_read_only()) GTEST_SKIP() << read_only.why_not();
    const auto args = run_args(run);
    expect_refused_untouched(
        run, 2,
        {{replacing(args, "-o", run + "/ro/tuned.csv"),
          {"ro/tuned.csv: field '-o/--tune_file': cannot create a file in its directory",
           "Read-only file system"}},
         {with(args, {"--evidence", run + "/ro/evidence.h5"}),
          {"ro/evidence.h5: field '--evidence': cannot create a file in its directory",
           "Read-only file system"}},
         {replacing(args, "--journal", run + "/ro/run.journal"),
          {"field '--journal': cannot create a file in its directory"}}});
}

// The run measures and decides everything, its tuned CSV and journal are written; only the
// archive and the summary, on a full file system, cannot be. That is exit 5 with the reason,
// the previous archive and summary as they were, no temporary file left, and no crash.
TEST(TuneMpiPaths, AFullDiskKeepsThePreviousArchiveAndExitsFive) {
    const std::string run = prepared_run_directory();
    SmallFileSystem full(run + "/full", "1m");
    if (!full.mounted()) GTEST_SKIP() << full.why_not();
    write_text(run + "/full/evidence.h5", "the archive of last night\n");
    write_text(run + "/full/summary.json", "{\"last\": \"night\"}\n");
    full.fill(run + "/full/filler");
    fs::remove(run + "/tuned.csv");
    const auto before = files_under(run + "/full");

    const TunerExit exit =
        run_tuner(fs::path(run).parent_path().string(), 2,
                  with(run_args(run), {"--evidence", run + "/full/evidence.h5", "--summary-json",
                                       run + "/full/summary.json"}));
    EXPECT_EQ(exit.exit_code, 5) << exit.log;
    EXPECT_NE(exit.log.find("evidence archive not written"), std::string::npos) << exit.log;
    EXPECT_NE(exit.log.find("summary JSON not written"), std::string::npos) << exit.log;
    EXPECT_NE(exit.log.find("No space left on device"), std::string::npos) << exit.log;
    EXPECT_EQ(files_under(run + "/full"), before) << "no temporary file, nothing replaced";
    // What could be written was: every shape decided and published, the journal whole.
    EXPECT_EQ(tuned_choices(run + "/tuned.csv").size(), 5U) << exit.log;
    const JournalFacts facts = read_journal_facts(run + "/new.journal");
    EXPECT_EQ(facts.final_decisions.size(), 5U);
}

// The tuned CSV on a full file system: every checkpoint fails to write it (ENOSPC at
// `failing_write`), measuring goes on with the decisions journaled, and the run ends with
// exit 5, the previous CSV byte-identical and nothing left beside it. Once there is room,
// --resume publishes the journaled decisions without measuring again: the CSV the same run
// writes on a disk with room. `room_left`: bytes freed after filling the disk.
void expect_tuned_csv_kept_on_a_full_disk(std::size_t room_left, const std::string& failing_write,
                                          const std::vector<std::string>& flags = {},
                                          const std::string& sample = "4") {
    const std::string run = prepared_run_directory();
    // The same run where there is room: the CSV the resume must end with.
    const std::string roomy = fs::path(run).parent_path().string() + "/roomy";
    fs::create_directories(roomy);
    fs::copy_file(run + "/untuned.csv", roomy + "/untuned.csv");
    fs::copy_file(run + "/tuned.csv", roomy + "/tuned.csv");
    const TunerExit reference =
        run_tuner(roomy, 2, with(replacing(run_args(roomy), "--candidate-sample", sample), flags));
    ASSERT_EQ(reference.exit_code, 0) << reference.log;

    SmallFileSystem full(run + "/full", "1m");
    if (!full.mounted()) GTEST_SKIP() << full.why_not();
    fs::copy_file(run + "/tuned.csv", run + "/full/tuned.csv");
    write_text(run + "/full/room", std::string(room_left, 'r'));
    full.fill(run + "/full/filler");
    fs::remove(run + "/full/room");
    const auto before = files_under(run + "/full");
    const auto args = with(replacing(replacing(run_args(run), "-o", run + "/full/tuned.csv"),
                                     "--candidate-sample", sample),
                           flags);

    const TunerExit exit =
        run_tuner(fs::path(run).parent_path().string(), 2, args, {}, std::chrono::seconds(60));
    EXPECT_EQ(exit.exit_code, 5) << exit.log;
    EXPECT_NE(exit.log.find(run + "/full/tuned.csv not written"), std::string::npos) << exit.log;
    EXPECT_NE(exit.log.find(failing_write + ": No space left on device"), std::string::npos)
        << exit.log;
    EXPECT_NE(exit.log.find("run again with --resume to publish"), std::string::npos) << exit.log;
    EXPECT_EQ(files_under(run + "/full"), before) << "no temporary, no lock, nothing replaced";
    const JournalFacts measured = read_journal_facts(run + "/new.journal");
    EXPECT_EQ(measured.final_decisions.size(), 5U);
    expect_each_candidate_once(measured);

    fs::remove(run + "/full/filler");
    const TunerExit resumed = run_tuner(fs::path(run).parent_path().string(), 2,
                                        with(args, {"--resume"}), {}, std::chrono::seconds(60));
    ASSERT_EQ(resumed.exit_code, 0) << resumed.log;
    EXPECT_EQ(read_file(run + "/full/tuned.csv"), read_file(roomy + "/tuned.csv")) << resumed.log;
    // Nothing measured again.
    EXPECT_EQ(read_journal_facts(run + "/new.journal").terminal_records, measured.terminal_records);
}

// No byte left: taking the CSV's lock fails (its content file cannot be written).
TEST(TuneMpiPaths, AFullDiskForTheTunedCsvKeepsThePreviousOneAndResumePublishes) {
    expect_tuned_csv_kept_on_a_full_disk(0, "writing the lock's content");
}

// One page left: the lock is taken, the replacement CSV (two pages) cannot be written.
TEST(TuneMpiPaths, ADiskTooFullForTheNewTunedCsvKeepsTheOldOneAndResumePublishes) {
    expect_tuned_csv_kept_on_a_full_disk(4096, ": writing");
}

// The nightly retune's mode: the rows are written once, after the replays (a sample large
// enough for the sim backend's best challengers to beat the default configs by the bar).
TEST(TuneMpiPaths, AFullDiskForUpdateImprovedKeepsTheTunedCsvAndResumeWritesIt) {
    expect_tuned_csv_kept_on_a_full_disk(0, "writing the lock's content",
                                         {"--compare", "--update_improved"}, "48");
}

// Inputs that pass the CSV's syntax but cannot run are refused before anything is written.
TEST(TuneMpiPaths, AnUntunedCsvThatCannotRunIsRefusedBeforeAnythingIsWritten) {
    const std::string run = prepared_run_directory();
    const std::string header =
        "token,model_dim,inter_dim,expert,topk,shared_expert_id,act_type,dtype,q_dtype_a,"
        "q_dtype_w,q_type,use_g1u1,doweight_stage1,hidden_pad,intermediate_pad,gate_mode\n";
    const std::string tail =
        ",512,128,17,5,16,ActivationType.Silu,torch.bfloat16,torch.float8_e4m3fn,"
        "torch.float4_e2m1fn_x2,QuantType.per_1x32,1,0,0,0,GateMode.INTERLEAVE\n";
    write_text(run + "/header_only.csv", header);
    write_text(run + "/huge_token.csv", header + "1" + tail + "1000000000000" + tail);
    write_text(run + "/huge_field.csv", header + "1," + std::string(2 << 20, '5') + tail.substr(4));
    const auto args = with(run_args(run), {"--evidence", run + "/evidence.h5"});
    expect_refused_untouched(
        run, 2,
        {{replacing(args, "-i", run + "/header_only.csv"),
          {"header_only.csv:1:1: field '(rows)': no shapes to tune"}},
         {replacing(args, "-i", run + "/huge_token.csv"),
          {"huge_token.csv:3:1: field 'token': 1000000000000 is above 16777215"}},
         {replacing(args, "-i", run + "/huge_field.csv"),
          {"huge_field.csv:2:3: field 'model_dim': '555",
           "... (2097152 bytes)' is out of range"}}});
    EXPECT_FALSE(fs::exists(run + "/new.journal"));
}

TEST(TuneMpiPaths, FlagsThatConflictOrDoNotParseAreNamed) {
    const std::string run = prepared_run_directory();
    const auto args = run_args(run);
    // One argument may not exceed 128 KiB (the kernel's MAX_ARG_STRLEN); 100 KB stands for a
    // runaway value here, the 2 MB one is in tune_options_test.
    const std::string long_value(100000, 'z');
    expect_refused_untouched(
        run, 2,
        {{with(args, {"--compare", "--run_config"}), {"--run_config and --compare conflict"}},
         {with(args, {"--run_config", "--compare", "--update_improved"}),
          {"--run_config and --compare conflict"}},
         {replacing(args, "--iters", "abc"), {"--iters: 'abc' is not an integer"}},
         {with(args, {"--timeout", "inf"}), {"--timeout: 'inf' is not a finite number"}},
         {replacing(args, "--seed", "-1"), {"seed"}},
         {replacing(args, "--backend", long_value), {"(100000 bytes)"}}});
    // The long value is not echoed whole.
    const TunerExit exit = run_tuner(fs::path(run).parent_path().string(), 1,
                                     replacing(args, "--backend", long_value));
    EXPECT_EQ(exit.exit_code, 2);
    EXPECT_LT(exit.log.size(), 4096U) << exit.log.substr(0, 500);
}

}  // namespace
}  // namespace fhmoe::cluster::testing
