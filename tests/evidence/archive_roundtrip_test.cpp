#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "evidence/evidence_compare.hpp"
#include "evidence/evidence_generator.hpp"
#include "evidence/scratch_dir.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::evidence {
namespace {

using testing::generate_evidence;
using testing::GeneratorOptions;
using testing::ScratchDir;

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    return text;
}

TEST(GeneratedEvidence, CoversEveryStatusAndDecisionKind) {
    const RunEvidence evidence = generate_evidence(GeneratorOptions{});
    std::set<tuning::Status> statuses;
    for (const CandidateRecord& c : evidence.candidates) statuses.insert(c.result.status);
    EXPECT_EQ(statuses.size(), tuning::all_statuses.size());
    std::set<Decision> decisions;
    for (const ShapeRollup& rollup : roll_up_shapes(evidence)) decisions.insert(rollup.decision);
    EXPECT_EQ(decisions.size(), std::size(all_decisions));
    EXPECT_FALSE(evidence.race.empty());
    EXPECT_NO_THROW(check_consistent(evidence));
}

TEST(Archive, ReadsBackEveryFieldOfWhatWasWritten) {
    const ScratchDir scratch;
    const RunEvidence written = generate_evidence(GeneratorOptions{.seed = 11, .shapes = 40});
    const std::string path = scratch.file("run.h5");
    write_archive(path, written);
    const RunEvidence read = read_archive(path);
    EXPECT_EQ(read.candidates.size(), written.candidates.size());
    const std::vector<std::string> differences = evidence_differences(written, read);
    EXPECT_TRUE(differences.empty()) << joined(differences);
}

TEST(Archive, ComparisonNoticesAChangedField) {
    // The round-trip test above is only as good as the comparison it relies on.
    const RunEvidence written = generate_evidence(GeneratorOptions{});
    RunEvidence changed = written;
    changed.candidates[3].result.timing.stderr_us += 0.5;
    changed.decisions[1].noise_floor_pct = kAbsent;
    changed.provenance.ranks[2].driver = "other";
    const std::vector<std::string> differences = evidence_differences(written, changed);
    ASSERT_EQ(differences.size(), 3u) << joined(differences);
    EXPECT_NE(differences[0].find("ranks[2]"), std::string::npos);
    EXPECT_NE(differences[1].find("candidates[3].result.timing.stderr_us"), std::string::npos);
    EXPECT_NE(differences[2].find("decisions[1].noise_floor_pct"), std::string::npos);
}

TEST(Archive, AnEmptyRunRoundTrips) {
    const ScratchDir scratch;
    RunEvidence empty;
    empty.provenance.backend = "sim";
    write_archive(scratch.file("empty.h5"), empty);
    const RunEvidence read = read_archive(scratch.file("empty.h5"));
    EXPECT_TRUE(evidence_differences(empty, read).empty())
        << joined(evidence_differences(empty, read));
}

TEST(Archive, ACheckpointIsReplacedWholeAndLeavesNoTemporaryFile) {
    const ScratchDir scratch;
    const std::string path = scratch.file("run.h5");
    RunEvidence checkpoint = generate_evidence(GeneratorOptions{.seed = 3, .shapes = 10});
    checkpoint.provenance.complete = false;
    checkpoint.provenance.exit_status = -1;
    write_archive(path, checkpoint);
    const RunEvidence final_run = generate_evidence(GeneratorOptions{.seed = 4, .shapes = 12});
    write_archive(path, final_run);
    EXPECT_TRUE(evidence_differences(final_run, read_archive(path)).empty());
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(scratch.path())) {
        names.push_back(entry.path().filename().string());
    }
    EXPECT_EQ(names, std::vector<std::string>{"run.h5"});
}

TEST(Archive, AFailedWriteLeavesThePreviousArchiveAlone) {
    const ScratchDir scratch;
    const std::string path = scratch.file("run.h5");
    const RunEvidence first = generate_evidence(GeneratorOptions{.seed = 5, .shapes = 6});
    write_archive(path, first);
    // A directory where the archive should go cannot be replaced by a file.
    const std::string blocked = scratch.file("blocked.h5");
    std::filesystem::create_directories(blocked + "/inside");
    EXPECT_THROW(write_archive(blocked, first), Error);
    EXPECT_TRUE(std::filesystem::is_directory(blocked));
    EXPECT_TRUE(evidence_differences(first, read_archive(path)).empty());
}

TEST(Archive, AWriteIntoAMissingDirectoryNamesThePath) {
    const ScratchDir scratch;
    const std::string path = scratch.file("no/such/dir/run.h5");
    try {
        write_archive(path, RunEvidence{});
        FAIL() << "expected fhmoe::Error";
    } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
        // HDF5 builds the archive in memory; the tuner's own write names the system's reason.
        EXPECT_NE(std::string(error.what()).find("No such file or directory"), std::string::npos)
            << error.what();
    }
}

TEST(Archive, InconsistentEvidenceIsRefusedBeforeAnythingIsWritten) {
    const ScratchDir scratch;
    RunEvidence evidence = generate_evidence(GeneratorOptions{.seed = 9, .shapes = 5});
    evidence.candidates[0].shape_id = 99;
    EXPECT_THROW(write_archive(scratch.file("bad.h5"), evidence), InternalError);
    evidence = generate_evidence(GeneratorOptions{.seed = 9, .shapes = 5});
    evidence.decisions.push_back(evidence.decisions.front());
    EXPECT_THROW(write_archive(scratch.file("bad.h5"), evidence), InternalError);
    evidence = generate_evidence(GeneratorOptions{.seed = 9, .shapes = 5});
    evidence.candidates[0].result.shape_key = "t1_other";
    EXPECT_THROW(write_archive(scratch.file("bad.h5"), evidence), InternalError);
    EXPECT_FALSE(std::filesystem::exists(scratch.file("bad.h5")));
}

TEST(PolicyValues, NameEveryValueOnceAndRoundTripThroughTheArchive) {
    const ScratchDir scratch;
    tuning::TuningPolicy policy;
    policy.measurement.err_ratio = 0.125;
    policy.finalist.rounds = 9;
    RunEvidence evidence;
    for (const tuning::NamedPolicyValue& field : tuning::named_policy_values(policy)) {
        evidence.provenance.policy.push_back({field.name, field.value});
    }
    std::set<std::string> names;
    for (const PolicyValue& value : evidence.provenance.policy) names.insert(value.name);
    EXPECT_EQ(names.size(), evidence.provenance.policy.size());
    EXPECT_TRUE(names.contains("errRatio") && names.contains("min_improvement_pct"));
    write_archive(scratch.file("policy.h5"), evidence);
    const auto read = read_archive(scratch.file("policy.h5")).provenance.policy;
    EXPECT_EQ(read, evidence.provenance.policy);
    const auto rounds = std::find_if(read.begin(), read.end(),
                                     [](const PolicyValue& v) { return v.name == "rounds"; });
    ASSERT_NE(rounds, read.end());
    EXPECT_EQ(rounds->value, 9.0);
}

}  // namespace
}  // namespace fhmoe::evidence
