// Rank 0's peak memory against the size of the night (issue #12, item 9): the same run over a
// night with four times the shapes (the same candidates per shape) must not need much more
// memory on rank 0. Rank 0 holds per-candidate state only for the shapes in flight (the
// journal keeps the rest), so the difference is what still grows with the night: the run's
// plan (every planned candidate, as the journal's run header has it) and per-shape counts.
// bench/rank0_memory.sh measures the DSV4 night at 1x and 10x; this guards the bound in CI.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

// Candidates per shape: enough that a per-candidate cost of the night shows far above the
// noise of the allocator (the 2.3 KB per candidate of rank 0 before this bound made the
// larger night's peak ~60 MiB higher), few enough that both runs take seconds.
constexpr int kCandidatesPerShape = 3000;
constexpr int kRanks = 2;
// The larger night's 27,000 extra candidates may cost rank 0 at most this much. The plan
// (the run header's candidates, held for the run) is about 0.3 KB per candidate.
constexpr long kMostExtraMiB = 24;

// The first three DSV4 rows of configs/untuned_fhmoe.csv, with `expert_counts` expert counts
// each (the catalogue does not depend on the expert count).
std::string write_night(const std::string& dir, int expert_counts) {
    std::ifstream dsv4(std::string(FHMOE_SOURCE_DIR) + "/configs/untuned_fhmoe.csv");
    std::string header;
    std::getline(dsv4, header);
    std::vector<std::string> rows(3);
    for (auto& row : rows) std::getline(dsv4, row);
    const std::string path = dir + "/untuned.csv";
    std::ofstream out(path);
    out << header << '\n';
    const int experts[] = {385, 257, 129, 65};
    for (int e = 0; e < expert_counts; ++e) {
        for (const auto& row : rows) {
            // token,model_dim,inter_dim,expert,topk,shared_expert_id,...
            std::vector<std::string> fields;
            std::stringstream split(row);
            for (std::string field; std::getline(split, field, ',');) fields.push_back(field);
            fields[3] = std::to_string(experts[e]);
            fields[5] = std::to_string(experts[e] - 1);
            for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << fields[i];
            out << '\n';
        }
    }
    return path;
}

long rank0_peak_mib(const std::string& name, int expert_counts) {
    const std::string dir = fresh_directory() + "/" + name;
    std::filesystem::create_directories(dir);
    const std::string untuned = write_night(dir, expert_counts);
    const TunerExit exit = run_tuner(dir, kRanks,
                                     {"-i",
                                      untuned,
                                      "-o",
                                      dir + "/tuned.csv",
                                      "--journal",
                                      dir + "/journal.bin",
                                      "--evidence",
                                      dir + "/evidence.h5",
                                      "--backend",
                                      "sim",
                                      "--candidate-sample",
                                      std::to_string(kCandidatesPerShape),
                                      "--seed",
                                      "1",
                                      "--warmup",
                                      "1",
                                      "--iters",
                                      "10",
                                      "--rounds",
                                      "3",
                                      "--finalists",
                                      "2",
                                      "--status-interval",
                                      "30"},
                                     {}, std::chrono::seconds(120));
    EXPECT_EQ(exit.exit_code, 0) << exit.log;
    std::smatch peak;
    const std::regex line("rank 0 peak resident memory \\(VmHWM\\): ([0-9]+) MiB");
    if (!std::regex_search(exit.log, peak, line)) {
        ADD_FAILURE() << "no peak memory line in the log:\n" << exit.log;
        return -1;
    }
    std::printf("%s: %d shapes x %d candidates, rank 0 peak %s MiB, %.1f s\n", name.c_str(),
                3 * expert_counts, kCandidatesPerShape, peak[1].str().c_str(), exit.seconds);
    return std::stol(peak[1].str());
}

TEST(TuneMpiMemory, RankZerosPeakBarelyGrowsWithANightFourTimesLarger) {
    const long one = rank0_peak_mib("x1", 1);
    const long four = rank0_peak_mib("x4", 4);
    ASSERT_GT(one, 0);
    ASSERT_GT(four, 0);
    EXPECT_LT(four - one, kMostExtraMiB)
        << "rank 0's peak grew from " << one << " to " << four << " MiB for 4x the shapes";
}

}  // namespace
}  // namespace fhmoe::cluster::testing
