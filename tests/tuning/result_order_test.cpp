#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "fhmoe/tuning/result_order.hpp"

namespace fhmoe::tuning {
namespace {

CandidateResult base(Status status = Status::ok) {
    CandidateResult r;
    r.shape_key = "shape";
    r.candidate = CandidateId{32, "s1", "s2"};
    r.status = status;
    return r;
}

TEST(CompareForMerge, StatusClassesRankMismatchOkFaultNotRun) {
    const std::vector<Status> faults = {Status::unsupported, Status::crash, Status::timeout,
                                        Status::oom_runtime, Status::oom_preflight};
    for (Status fault : faults) {
        CandidateResult faulted = base(fault);
        faulted.attempt = 9;  // newer evidence does not lift a fault over a measurement
        EXPECT_TRUE(compare_for_merge(base(Status::ok), faulted) > 0) << to_string(fault);
        EXPECT_TRUE(compare_for_merge(base(Status::mismatch), faulted) > 0) << to_string(fault);
        CandidateResult later_not_run = base(Status::not_run);
        later_not_run.attempt = 9;
        EXPECT_TRUE(compare_for_merge(base(fault), later_not_run) > 0) << to_string(fault);
    }
    CandidateResult later_ok = base(Status::ok);
    later_ok.attempt = 9;
    EXPECT_TRUE(compare_for_merge(base(Status::mismatch), later_ok) > 0);
}

TEST(CompareForMerge, CorruptStatusNeverOutranksRealEvidence) {
    const CandidateResult corrupt = base(static_cast<Status>(99));
    EXPECT_TRUE(compare_for_merge(base(Status::unsupported), corrupt) > 0);
    EXPECT_TRUE(compare_for_merge(base(Status::ok), corrupt) > 0);
}

TEST(CompareForMerge, IdenticalResultsAreEquivalent) {
    EXPECT_TRUE(compare_for_merge(base(), base()) == 0);
}

TEST(CompareForMerge, EveryFieldSeparatesTwoResults) {
    const std::vector<std::function<void(CandidateResult&)>> changes = {
        [](CandidateResult& r) { r.attempt = 1; },
        [](CandidateResult& r) { r.finished_unix_ns = 1; },
        [](CandidateResult& r) { r.started_unix_ns = 1; },
        [](CandidateResult& r) { r.where.rank = 3; },
        [](CandidateResult& r) { r.chunk = 3; },
        [](CandidateResult& r) { r.where.device_index = 3; },
        [](CandidateResult& r) { r.where.worker_pid = 3; },
        [](CandidateResult& r) { r.where.host = "node7"; },
        [](CandidateResult& r) { r.where.device_name = "H200"; },
        [](CandidateResult& r) { r.where.device_uuid = "GPU-1"; },
        // Other statuses of the same class as the base's crash.
        [](CandidateResult& r) { r.status = Status::unsupported; },
        [](CandidateResult& r) { r.status = Status::timeout; },
        [](CandidateResult& r) { r.detail = "x"; },
        [](CandidateResult& r) { r.fault_injected = true; },
        [](CandidateResult& r) { r.shape_key = "other"; },
        [](CandidateResult& r) { r.candidate.stage2 = "other"; },
        [](CandidateResult& r) { r.timing.n_raw = 1; },
        [](CandidateResult& r) { r.timing.n_kept = 1; },
        [](CandidateResult& r) { r.timing.mean_us = 1; },
        [](CandidateResult& r) { r.timing.median_us = 1; },
        [](CandidateResult& r) { r.timing.stddev_us = 1; },
        [](CandidateResult& r) { r.timing.stderr_us = 1; },
        [](CandidateResult& r) { r.timing.min_us = 1; },
        [](CandidateResult& r) { r.timing.max_us = 1; },
        [](CandidateResult& r) { r.stages.sort_us = 1; },
        [](CandidateResult& r) { r.stages.quant_us = 1; },
        [](CandidateResult& r) { r.stages.stage1_us = 1; },
        [](CandidateResult& r) { r.stages.stage2_us = 1; },
        [](CandidateResult& r) { r.stages.reduce_us = 1; },
        [](CandidateResult& r) { r.error.mismatch_fraction = 1; },
        [](CandidateResult& r) { r.error.cosine_distance = 1; },
        [](CandidateResult& r) { r.error.max_abs_delta = 1; },
        [](CandidateResult& r) { r.error.catastrophic = true; },
    };
    for (std::size_t i = 0; i < changes.size(); ++i) {
        CandidateResult changed = base(Status::crash);
        changes[i](changed);
        const CandidateResult original = base(Status::crash);
        EXPECT_TRUE(compare_for_merge(changed, original) != 0) << "change " << i;
        // Antisymmetric: swapping the arguments reverses the answer.
        EXPECT_EQ(compare_for_merge(changed, original) > 0,
                  compare_for_merge(original, changed) < 0)
            << "change " << i;
    }
}

TEST(CompareForMerge, NaNTimesStillOrderTotally) {
    CandidateResult a = base();
    a.timing.mean_us = std::numeric_limits<double>::quiet_NaN();
    const CandidateResult b = a;
    CandidateResult c = base();
    c.timing.mean_us = 5.0;
    EXPECT_TRUE(compare_for_merge(a, b) == 0);
    EXPECT_TRUE(compare_for_merge(a, c) != 0);
    EXPECT_EQ(compare_for_merge(a, c) > 0, compare_for_merge(c, a) < 0);
}

TEST(CompareForMerge, PrecedenceOutranksIdentity) {
    CandidateResult newer = base();
    newer.attempt = 2;
    CandidateResult older_but_higher_rank = base();
    older_but_higher_rank.attempt = 1;
    older_but_higher_rank.where.rank = 99;
    EXPECT_TRUE(compare_for_merge(newer, older_but_higher_rank) > 0);
}

}  // namespace
}  // namespace fhmoe::tuning
