#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/relative_ranking.hpp"

namespace fhmoe::tuning {
namespace {

const std::string shape = "token=256|dsv4_i384";

CandidateId candidate(const std::string& stage1) { return CandidateId{32, stage1, "s2"}; }

CandidateResult measured(const std::string& stage1, std::int64_t chunk, double mean_us,
                         Status status = Status::ok) {
    CandidateResult r;
    r.shape_key = shape;
    r.candidate = candidate(stage1);
    r.chunk = chunk;
    r.status = status;
    r.timing.mean_us = mean_us;
    return r;
}

Measured incumbent_ok(double mean_us) { return Measured{Status::ok, mean_us, 0.0}; }

CompleteShape complete_shape(const std::vector<CandidateResult>& results) {
    std::vector<CandidateId> planned;
    for (const auto& r : results) planned.push_back(r.candidate);
    ShapeMerge merge(shape, planned);
    for (const auto& r : results) merge.add(r);
    auto complete = merge.complete();
    if (!complete) throw InternalError("test shape is incomplete");
    return *complete;
}

TEST(RelativeToIncumbent, UsesTheIncumbentOfTheSameChunk) {
    const IncumbentByChunk incumbents = {{1, incumbent_ok(100.0)}, {2, incumbent_ok(105.0)}};
    const auto relative = relative_to_incumbent(measured("a", 2, 84.0), incumbents);
    ASSERT_TRUE(relative);
    EXPECT_DOUBLE_EQ(relative->score, 0.8);
    EXPECT_EQ(relative->basis, RankingBasis::same_chunk_incumbent);
}

TEST(RelativeToIncumbent, FailedIncumbentFallsBackToTheMedianOfTheOtherChunks) {
    const IncumbentByChunk incumbents = {
        {1, incumbent_ok(100.0)}, {2, incumbent_ok(105.0)}, {3, Measured{Status::crash, 0.0, 0.0}}};
    const auto relative = relative_to_incumbent(measured("c", 3, 82.0), incumbents);
    ASSERT_TRUE(relative);
    EXPECT_DOUBLE_EQ(relative->score, 82.0 / 102.5);
    EXPECT_EQ(relative->basis, RankingBasis::other_chunks_incumbent);
}

TEST(RelativeToIncumbent, NoOkIncumbentAnywhereRanksByAbsoluteTime) {
    const IncumbentByChunk failed = {{1, Measured{Status::timeout, 0.0, 0.0}}};
    const auto relative = relative_to_incumbent(measured("a", 1, 84.0), failed);
    ASSERT_TRUE(relative);
    EXPECT_DOUBLE_EQ(relative->score, 84.0);
    EXPECT_EQ(relative->basis, RankingBasis::absolute);

    const auto no_incumbent = relative_to_incumbent(measured("a", 1, 84.0), {});
    ASSERT_TRUE(no_incumbent);
    EXPECT_DOUBLE_EQ(no_incumbent->score, 84.0);
    EXPECT_EQ(no_incumbent->basis, RankingBasis::absolute);
}

TEST(RelativeToIncumbent, CandidateThatIsNotOkHasNoScore) {
    const IncumbentByChunk incumbents = {{1, incumbent_ok(100.0)}};
    EXPECT_FALSE(relative_to_incumbent(measured("a", 1, 1.0, Status::mismatch), incumbents));
    EXPECT_FALSE(relative_to_incumbent(measured("a", 1, 0.0, Status::crash), incumbents));
}

TEST(RelativeToIncumbent, RejectsAMissingChunkAndBrokenTimes) {
    const IncumbentByChunk incumbents = {{1, incumbent_ok(100.0)}};
    EXPECT_THROW(relative_to_incumbent(measured("a", 9, 50.0), incumbents), InternalError);
    EXPECT_THROW(relative_to_incumbent(measured("a", 1, 0.0), incumbents), InternalError);
    EXPECT_THROW(relative_to_incumbent(measured("a", 1, 50.0), {{1, incumbent_ok(-1.0)}}),
                 InternalError);
}

TEST(SelectFinalists, RanksByTimeRelativeToTheSameDevice) {
    // Chunk 2 ran on a GPU 5% slower than chunk 1's: b is slower in microseconds than a but
    // faster relative to its own incumbent.
    const CompleteShape shape_results = complete_shape({
        measured("a", 1, 95.0),   // 0.950
        measured("b", 2, 97.0),   // 0.924
        measured("c", 2, 110.0),  // 1.048
        measured("d", 1, 10.0, Status::mismatch),
        measured("e", 1, 0.0, Status::oom_preflight),
    });
    const IncumbentByChunk incumbents = {{1, incumbent_ok(100.0)}, {2, incumbent_ok(105.0)}};
    const std::vector<Finalist> finalists =
        select_finalists(shape_results, incumbents, 2, std::nullopt);
    ASSERT_EQ(finalists.size(), 2u);
    EXPECT_EQ(finalists[0].result.candidate, candidate("b"));
    EXPECT_DOUBLE_EQ(finalists[0].relative.score, 97.0 / 105.0);
    EXPECT_EQ(finalists[1].result.candidate, candidate("a"));

    const auto all = select_finalists(shape_results, incumbents, 10, std::nullopt);
    ASSERT_EQ(all.size(), 3u) << "only ok candidates are finalists";
    EXPECT_EQ(all[2].result.candidate, candidate("c"));
    EXPECT_TRUE(select_finalists(shape_results, incumbents, 0, std::nullopt).empty());
}

TEST(SelectFinalists, TiesBreakByCandidateKey) {
    const CompleteShape shape_results =
        complete_shape({measured("z", 1, 50.0), measured("m", 2, 100.0), measured("a", 1, 50.0)});
    const IncumbentByChunk incumbents = {{1, incumbent_ok(100.0)}, {2, incumbent_ok(200.0)}};
    const auto finalists = select_finalists(shape_results, incumbents, 3, std::nullopt);
    ASSERT_EQ(finalists.size(), 3u);
    EXPECT_EQ(finalists[0].result.candidate, candidate("a"));
    EXPECT_EQ(finalists[1].result.candidate, candidate("m"));
    EXPECT_EQ(finalists[2].result.candidate, candidate("z"));
}

TEST(SelectFinalists, IncumbentIdIsLeftOut) {
    const CompleteShape shape_results =
        complete_shape({measured("inc", 1, 100.0), measured("a", 1, 99.0)});
    const IncumbentByChunk incumbents = {{1, incumbent_ok(100.0)}};
    const auto finalists = select_finalists(shape_results, incumbents, 2, candidate("inc"));
    ASSERT_EQ(finalists.size(), 1u);
    EXPECT_EQ(finalists[0].result.candidate, candidate("a"));
}

TEST(SelectFinalists, ChunkWithFailedIncumbentStillCompetesAgainstTheShapeMedian) {
    const CompleteShape shape_results =
        complete_shape({measured("a", 1, 96.0), measured("b", 2, 90.0), measured("c", 3, 99.0)});
    const IncumbentByChunk incumbents = {
        {1, incumbent_ok(100.0)}, {2, Measured{Status::crash, 0.0, 0.0}}, {3, incumbent_ok(110.0)}};
    const auto finalists = select_finalists(shape_results, incumbents, 3, std::nullopt);
    ASSERT_EQ(finalists.size(), 3u);
    EXPECT_EQ(finalists[0].result.candidate, candidate("b"));  // 90 / 105
    EXPECT_EQ(finalists[0].relative.basis, RankingBasis::other_chunks_incumbent);
    EXPECT_EQ(finalists[1].result.candidate, candidate("c"));  // 99 / 110
    EXPECT_EQ(finalists[1].relative.basis, RankingBasis::same_chunk_incumbent);
    EXPECT_EQ(finalists[2].result.candidate, candidate("a"));  // 96 / 100
}

TEST(RankingBasis, HasStableNames) {
    EXPECT_EQ(to_string(RankingBasis::same_chunk_incumbent), "same_chunk_incumbent");
    EXPECT_EQ(to_string(RankingBasis::other_chunks_incumbent), "other_chunks_incumbent");
    EXPECT_EQ(to_string(RankingBasis::absolute), "absolute");
    EXPECT_EQ(to_string(static_cast<RankingBasis>(42)), "invalid");
}

}  // namespace
}  // namespace fhmoe::tuning
