// A worker killed in the middle of a race (issue #12, item 6): the finalist it was timing is
// raced again on a fresh worker, so the run publishes exactly what an undisturbed run does.
// Real SIGSEGVs in real worker processes (`--inject-fault crash@race:SHAPE:INDEX`), aimed at
// the fastest challenger of every race, on the sim backend (whose times depend only on the
// seed, the candidate and the round, so both runs must agree kernel for kernel).

#include <gtest/gtest.h>

#include <filesystem>

#include "tuner_harness.hpp"

namespace fhmoe::cluster::testing {
namespace {

constexpr int kRanks = 2;
constexpr int kSample = 10;
constexpr std::uint64_t kSeed = 17;

std::vector<evidence::RaceOutcomeRecord> races_of(const std::string& journal) {
    std::vector<evidence::RaceOutcomeRecord> races;
    for (const auto& record : evidence::read_journal(journal).records) {
        if (const auto* race = std::get_if<evidence::RaceOutcomeRecord>(&record)) {
            races.push_back(*race);
        }
    }
    return races;
}

// "crash@race:SHAPE:INDEX,..." for the fastest challenger of every race a run decided by.
std::string crash_fastest_challengers(const std::string& journal, std::size_t& aimed) {
    std::map<std::string, tuning::CandidateId> challengers;
    for (const auto& record : evidence::read_journal(journal).records) {
        if (const auto* decision = std::get_if<evidence::ShapeDecision>(&record)) {
            if (decision->best_challenger)
                challengers[decision->shape_key] = *decision->best_challenger;
        }
    }
    std::string spec;
    for (const auto& race : races_of(journal)) {
        const auto challenger = challengers.find(race.shape_key);
        if (challenger == challengers.end()) continue;
        for (const auto& contender : race.contenders) {
            if (contender.id.key() != challenger->second.key()) continue;
            spec += (spec.empty() ? "" : ",") + std::string("crash@race:") + race.shape_key + ":" +
                    std::to_string(contender.planned_index);
            ++aimed;
        }
    }
    return spec;
}

TEST(TuneMpiRaceFault, AFinalistWhoseWorkerDiesMidRaceIsRacedAgainAndStillWins) {
    const std::string base = fresh_directory();
    const std::string reference_dir = base + "/reference";
    std::filesystem::create_directories(reference_dir);
    const TunerExit reference_run =
        run_tuner(reference_dir, kRanks, small_run_args(reference_dir, "sim", kSample, kSeed));
    ASSERT_EQ(reference_run.exit_code, 0) << reference_run.log;
    std::size_t aimed = 0;
    const std::string faults = crash_fastest_challengers(reference_dir + "/journal.bin", aimed);
    ASSERT_GE(aimed, 3U) << "too few races to aim at: " << faults;

    const std::string dir = base + "/crashed";
    std::filesystem::create_directories(dir);
    auto args = small_run_args(dir, "sim", kSample, kSeed);
    args.insert(args.end(), {"--inject-fault", faults});
    const TunerExit crashed = run_tuner(dir, kRanks, args);
    ASSERT_EQ(crashed.exit_code, 0) << crashed.log;

    EXPECT_EQ(tuned_choices(dir + "/tuned.csv"), tuned_choices(reference_dir + "/tuned.csv"));
    std::size_t raced_again = 0;
    for (const auto& race : races_of(dir + "/journal.bin")) {
        for (const auto& contender : race.contenders) {
            const std::string entry =
                "crash@race:" + race.shape_key + ":" + std::to_string(contender.planned_index);
            if (faults.find(entry) == std::string::npos) continue;
            ++raced_again;
            EXPECT_EQ(contender.status, tuning::Status::ok) << entry << ": " << contender.detail;
            EXPECT_NE(contender.detail.find("run again on a fresh worker"), std::string::npos)
                << contender.detail;
            EXPECT_NE(contender.detail.find("SIGSEGV"), std::string::npos) << contender.detail;
            for (const auto& round : contender.samples_us) EXPECT_FALSE(round.empty()) << entry;
        }
    }
    EXPECT_EQ(raced_again, aimed);
    expect_each_candidate_once(read_journal_facts(dir + "/journal.bin"));
}

}  // namespace
}  // namespace fhmoe::cluster::testing
