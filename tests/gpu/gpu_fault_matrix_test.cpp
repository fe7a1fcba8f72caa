// The fault matrix on the gpu backend, through the real supervisor and real fhmoe_worker
// processes on the device: a crash is a kernel storing through an illegal address (error
// 700 at the next synchronization, the context poisoned, the worker replaced), a hang a
// kernel that never ends (the deadline kills the worker), an oom a device allocation that
// really fails (the worker keeps going), a wrong output a mismatch. Every candidate gets
// one terminal status; those behind a fatal fault are measured by a fresh worker.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "supervisor/supervisor_test_support.hpp"

namespace fhmoe::supervisor::testing {
namespace {

using tuning::Status;

// The tiny shape's candidates take milliseconds on a GPU; the deadline leaves room for the
// first launches of a fresh process (module loading) on a shared machine.
constexpr double kGpuDeadlineS = 5.0;
constexpr std::size_t kChunkSize = 3;

struct GpuFaultCase {
    const char* kind;
    Status status;
    bool replaces_worker;
    const char* detail;  // a phrase the faulting candidate's detail must contain
};

const GpuFaultCase gpu_fault_cases[] = {
    {"crash", Status::crash, true, "device error 700"},
    {"hang", Status::timeout, true, "deadline"},
    {"oom", Status::oom_runtime, false, "allocation failed"},
    {"wrong", Status::mismatch, false, "mismatch_fraction"},
};

SupervisorConfig gpu_config(const std::string& faults) {
    SupervisorConfig config = make_config("gpu", faults);
    // From a copy of the tree on the GPU machine the build's absolute path does not exist.
    if (const char* worker = std::getenv("FHMOE_WORKER")) config.worker_executable = worker;
    return config;
}

Chunk gpu_chunk() {
    Chunk chunk = make_chunk("gpu", kChunkSize);
    chunk.candidate_timeout_s = kGpuDeadlineS;
    return chunk;
}

using Param = std::tuple<GpuFaultCase, std::size_t>;
class GpuFaultMatrix : public ::testing::TestWithParam<Param> {};

TEST_P(GpuFaultMatrix, TheFaultIsRealAndEveryOtherCandidateIsMeasured) {
    const auto& [fault, position] = GetParam();
    const std::int64_t faulting = first_planned_index + static_cast<std::int64_t>(position);
    const Chunk chunk = gpu_chunk();
    Supervisor supervisor(gpu_config(std::string(fault.kind) + "@" + std::to_string(faulting)));
    const Recording run = record_chunk(supervisor, chunk);

    ASSERT_EQ(run.chunks_done, 1);
    ASSERT_EQ(run.results.size(), kChunkSize);
    EXPECT_EQ(run.restarts.size(), fault.replaces_worker ? 1U : 0U);
    const int first_pid = run.loads.at(0).device.worker_pid;
    for (std::size_t i = 0; i < kChunkSize; ++i) {
        const std::int64_t index = first_planned_index + static_cast<std::int64_t>(i);
        const tuning::CandidateResult& result = run.only(index);
        SCOPED_TRACE("candidate #" + std::to_string(index) + ": " + result.detail);
        EXPECT_TRUE(tuning::is_terminal(result.status));
        EXPECT_GE(result.where.device_index, 0);
        EXPECT_FALSE(result.where.device_uuid.empty());
        if (index == faulting) {
            EXPECT_EQ(result.status, fault.status);
            EXPECT_TRUE(result.fault_injected);
            EXPECT_TRUE(contains(result.detail, fault.detail));
            EXPECT_TRUE(contains(result.detail, "fault injection"));
            continue;
        }
        EXPECT_EQ(result.status, Status::ok);
        EXPECT_EQ(result.timing.n_raw, chunk.measurement.iters);
        EXPECT_GT(result.timing.mean_us, 0.0);
        if (index < faulting || !fault.replaces_worker) {
            EXPECT_EQ(result.where.worker_pid, first_pid);
        } else {
            EXPECT_NE(result.where.worker_pid, first_pid) << "behind the fault: a fresh worker";
        }
    }
    if (fault.status == Status::timeout) {
        const auto& hung = run.only(faulting);
        const double lost_s =
            static_cast<double>(hung.finished_unix_ns - hung.started_unix_ns) * 1e-9;
        EXPECT_GE(lost_s, kGpuDeadlineS - 0.05);
        EXPECT_LT(lost_s, kGpuDeadlineS + 1.0) << "a hang costs its deadline";
    }
}

TEST(GpuFaultMatrix, ACrashReportsTheDeviceFaultAndPoisonsOnlyItsOwnWorker) {
    const Chunk chunk = gpu_chunk();
    Supervisor supervisor(gpu_config("crash@" + std::to_string(first_planned_index)));
    const Recording run = record_chunk(supervisor, chunk);
    const tuning::CandidateResult& crashed = run.only(first_planned_index);
    EXPECT_TRUE(contains(crashed.detail, "device fault"));
    EXPECT_TRUE(contains(crashed.detail, "illegal")) << crashed.detail;
    ASSERT_EQ(run.restarts.size(), 1U);
    // The replacement measures on the same device at full health.
    EXPECT_EQ(run.only(first_planned_index + 1).status, Status::ok);
    EXPECT_EQ(run.only(first_planned_index + 1).where.device_uuid, crashed.where.device_uuid);
}

std::string case_name(const ::testing::TestParamInfo<Param>& info) {
    static const char* positions[] = {"first", "middle", "last"};
    return std::string(std::get<0>(info.param).kind) + "_at_" + positions[std::get<1>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuFaultMatrix,
                         ::testing::Combine(::testing::ValuesIn(gpu_fault_cases),
                                            ::testing::Values(0U, 1U, 2U)),
                         case_name);

}  // namespace
}  // namespace fhmoe::supervisor::testing
