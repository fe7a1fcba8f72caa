#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/result_order.hpp"
#include "fhmoe/tuning/shape_merge.hpp"

namespace fhmoe::tuning {
namespace {

const std::string shape = "token=64|dsv4_i384";

CandidateId candidate(int index) {
    return CandidateId{32, "s1_t32x" + std::to_string(index), "s2_atomic"};
}

std::vector<CandidateId> plan(int count) {
    std::vector<CandidateId> planned;
    for (int index = 0; index < count; ++index) planned.push_back(candidate(index));
    return planned;
}

CandidateResult result(int index, Status status, std::int64_t chunk, int rank,
                       std::uint32_t attempt = 0, double mean_us = 10.0) {
    CandidateResult r;
    r.shape_key = shape;
    r.candidate = candidate(index);
    r.status = status;
    r.chunk = chunk;
    r.where.rank = rank;
    r.attempt = attempt;
    r.timing.mean_us = mean_us;
    r.finished_unix_ns = 1000 + index;
    return r;
}

void expect_same(const std::vector<CandidateResult>& a, const std::vector<CandidateResult>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_TRUE(compare_for_merge(a[i], b[i]) == 0) << "candidate " << a[i].candidate.key();
    }
}

TEST(ShapeMerge, NothingReceivedIsAllNotRunAndIncomplete) {
    const ShapeMerge merge(shape, plan(3));
    const std::vector<CandidateResult> results = merge.results();
    ASSERT_EQ(results.size(), 3u);
    for (std::size_t i = 0; i < results.size(); ++i) {
        EXPECT_EQ(results[i].status, Status::not_run);
        EXPECT_EQ(results[i].candidate, candidate(static_cast<int>(i)));
        EXPECT_EQ(results[i].shape_key, shape);
        EXPECT_EQ(results[i].detail, "no result received");
    }
    EXPECT_EQ(merge.counts()[Status::not_run], 3u);
    EXPECT_EQ(merge.counts().total(), 3u);
    EXPECT_FALSE(merge.is_complete());
    EXPECT_FALSE(merge.complete());
    EXPECT_EQ(merge.received(), 0u);
}

TEST(ShapeMerge, TwoChunksOneDeadWorkerKeepsMeasurementsAndYieldsNoWinner) {
    ShapeMerge merge(shape, plan(8));
    // Chunk 10 on rank 1: candidates 0..3, all measured.
    merge.add(result(0, Status::ok, 10, 1));
    merge.add(result(1, Status::mismatch, 10, 1));
    merge.add(result(2, Status::ok, 10, 1));
    merge.add(result(3, Status::unsupported, 10, 1));
    // Chunk 11 on rank 2: candidate 4 measured, 5 killed the worker, 6 reported not_run,
    // 7 never reported at all (the rank died with it).
    merge.add(result(4, Status::ok, 11, 2));
    merge.add(result(5, Status::crash, 11, 2));
    merge.add(result(6, Status::not_run, 11, 2));

    const std::vector<CandidateResult> results = merge.results();
    EXPECT_EQ(results[0].status, Status::ok);
    EXPECT_EQ(results[4].status, Status::ok);
    EXPECT_EQ(results[4].chunk, 11);
    EXPECT_EQ(results[5].status, Status::crash);
    EXPECT_EQ(results[6].status, Status::not_run);
    EXPECT_EQ(results[7].status, Status::not_run);
    const StatusCounts counts = merge.counts();
    EXPECT_EQ(counts[Status::ok], 3u);
    EXPECT_EQ(counts[Status::mismatch], 1u);
    EXPECT_EQ(counts[Status::unsupported], 1u);
    EXPECT_EQ(counts[Status::crash], 1u);
    EXPECT_EQ(counts[Status::not_run], 2u);
    EXPECT_EQ(counts.total(), 8u);
    EXPECT_FALSE(merge.is_complete());
    EXPECT_FALSE(merge.complete()) << "an incomplete shape must not be rankable";

    // The fresh worker runs what was behind the fault: now the shape is complete, and the
    // measurements from before the fault are still there.
    merge.add(result(6, Status::ok, 11, 2, 1));
    merge.add(result(7, Status::ok, 11, 2, 1));
    EXPECT_TRUE(merge.is_complete());
    const auto complete = merge.complete();
    ASSERT_TRUE(complete);
    EXPECT_EQ(complete->shape_key(), shape);
    ASSERT_EQ(complete->results().size(), 8u);
    EXPECT_EQ(complete->results()[0].status, Status::ok);
    EXPECT_EQ(complete->results()[5].status, Status::crash);
    EXPECT_EQ(complete->results()[6].attempt, 1u);
    EXPECT_EQ(merge.received(), 9u);
}

TEST(ShapeMerge, EmptyPlanIsTriviallyComplete) {
    const ShapeMerge merge(shape, {});
    EXPECT_TRUE(merge.is_complete());
    ASSERT_TRUE(merge.complete());
    EXPECT_TRUE(merge.complete()->results().empty());
}

TEST(ShapeMerge, RejectsUnplannedCandidatesOtherShapesAndDuplicatePlans) {
    ShapeMerge merge(shape, plan(2));
    EXPECT_THROW(merge.add(result(2, Status::ok, 1, 0)), InternalError);
    CandidateResult other = result(0, Status::ok, 1, 0);
    other.shape_key = "token=128|dsv4_i384";
    EXPECT_THROW(merge.add(other), InternalError);
    EXPECT_EQ(merge.received(), 0u);
    EXPECT_THROW(ShapeMerge(shape, {candidate(0), candidate(1), candidate(0)}), InternalError);
}

TEST(ShapeMerge, MeasurementBeatsALaterFault) {
    ShapeMerge merge(shape, plan(1));
    merge.add(result(0, Status::ok, 1, 0, 0));
    merge.add(result(0, Status::timeout, 2, 3, 4));
    EXPECT_EQ(merge.results()[0].status, Status::ok);
    EXPECT_EQ(merge.results()[0].chunk, 1);
}

TEST(ShapeMerge, TerminalBeatsALaterNotRun) {
    ShapeMerge merge(shape, plan(1));
    merge.add(result(0, Status::not_run, 2, 0, 5));
    merge.add(result(0, Status::oom_preflight, 1, 0, 0));
    EXPECT_EQ(merge.results()[0].status, Status::oom_preflight);
    EXPECT_TRUE(merge.is_complete());
}

TEST(ShapeMerge, MismatchBeatsOk) {
    ShapeMerge merge(shape, plan(1));
    merge.add(result(0, Status::mismatch, 1, 0, 0, 5.0));
    merge.add(result(0, Status::ok, 2, 1, 3, 5.0));
    EXPECT_EQ(merge.results()[0].status, Status::mismatch);
}

TEST(ShapeMerge, SameClassPrefersLaterAttemptThenLaterFinish) {
    ShapeMerge by_attempt(shape, plan(1));
    by_attempt.add(result(0, Status::ok, 1, 0, 2, 7.0));
    by_attempt.add(result(0, Status::ok, 1, 0, 1, 9.0));
    EXPECT_EQ(by_attempt.results()[0].attempt, 2u);

    ShapeMerge by_finish(shape, plan(1));
    CandidateResult early = result(0, Status::crash, 1, 0);
    CandidateResult late = early;
    late.finished_unix_ns += 5;
    late.detail = "late";
    by_finish.add(late);
    by_finish.add(early);
    EXPECT_EQ(by_finish.results()[0].detail, "late");
}

// Results for 3 candidates with every kind of duplicate: classes, attempts, ranks, equal
// precedence differing only in the rank or in the timing, and an exact twin.
std::vector<CandidateResult> duplicate_heavy_results() {
    std::vector<CandidateResult> all;
    all.push_back(result(0, Status::not_run, 1, 0, 0));
    all.push_back(result(0, Status::crash, 1, 0, 0));
    all.push_back(result(0, Status::ok, 2, 1, 1, 11.0));
    all.push_back(result(0, Status::ok, 2, 2, 1, 12.0));  // same precedence, other rank
    all.push_back(result(1, Status::ok, 1, 0, 0, 20.0));
    all.push_back(result(1, Status::ok, 1, 0, 0, 21.0));  // differs only in timing
    all.push_back(result(1, Status::ok, 1, 0, 0, 20.0));  // exact twin
    all.push_back(result(2, Status::timeout, 3, 4, 0));
    all.push_back(result(2, Status::not_run, 3, 4, 1));
    return all;
}

TEST(ShapeMerge, SameSetGivesSameAnswerInAnyOrder) {
    std::vector<CandidateResult> arrivals = duplicate_heavy_results();
    ShapeMerge reference(shape, plan(3));
    for (const auto& r : arrivals) reference.add(r);
    const std::vector<CandidateResult> expected = reference.results();
    EXPECT_DOUBLE_EQ(expected[0].timing.mean_us, 12.0);  // the higher rank wins the tie
    EXPECT_DOUBLE_EQ(expected[1].timing.mean_us, 21.0);
    EXPECT_EQ(expected[2].status, Status::timeout);

    std::mt19937 random(20240925);
    for (int trial = 0; trial < 500; ++trial) {
        std::shuffle(arrivals.begin(), arrivals.end(), random);
        ShapeMerge merge(shape, plan(3));
        for (const auto& r : arrivals) merge.add(r);
        expect_same(merge.results(), expected);
        EXPECT_EQ(merge.counts(), reference.counts());
    }
}

TEST(ShapeMerge, EveryPermutationOfOneCandidatesDuplicatesAgrees) {
    std::vector<CandidateResult> arrivals;
    for (const auto& r : duplicate_heavy_results()) {
        if (r.candidate == candidate(0)) arrivals.push_back(r);
    }
    std::vector<std::size_t> order(arrivals.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::optional<CandidateResult> first;
    do {
        ShapeMerge merge(shape, plan(1));
        for (std::size_t i : order) merge.add(arrivals[i]);
        const CandidateResult kept = merge.results()[0];
        if (!first) first = kept;
        EXPECT_TRUE(compare_for_merge(kept, *first) == 0);
    } while (std::next_permutation(order.begin(), order.end()));
}

}  // namespace
}  // namespace fhmoe::tuning
