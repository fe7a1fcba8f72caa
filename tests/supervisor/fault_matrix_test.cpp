// The fault matrix (DESIGN.md section 1 step 4): every injected fault, at the first, a middle
// and the last candidate of a chunk, on real worker processes of the cpu and sim backends.
// Every candidate gets exactly one terminal status; the ones before the fault keep what the
// first worker measured; the ones behind it are measured (by a fresh worker when the fault
// killed the first); a hang costs its deadline, not more.

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "supervisor/supervisor_test_support.hpp"

namespace fhmoe::supervisor::testing {
namespace {

using tuning::Status;

struct FaultCase {
    const char* kind;      // the --inject-fault kind
    Status status;         // what the faulting candidate must get
    bool replaces_worker;  // the fault kills or wedges the worker
    const char* detail;    // a phrase its detail must contain
};

const FaultCase fault_cases[] = {
    {"crash", Status::crash, true, "killed by signal 11 (SIGSEGV)"},
    {"exit", Status::crash, true, "exited with code 3"},
    {"hang", Status::timeout, true, "deadline"},
    {"oom", Status::oom_runtime, false, "allocation failed"},
    {"wrong", Status::mismatch, false, "mismatch_fraction"},
    {"unsupported", Status::unsupported, false, "fault injection"},
    {"oom_preflight", Status::oom_preflight, false, "fault injection"},
    {"genfail", Status::ok, true, ""},  // a load failure: no candidate is at fault
};

constexpr std::size_t chunk_size = 3;

using Param = std::tuple<std::string, FaultCase, std::size_t>;

class FaultMatrix : public ::testing::TestWithParam<Param> {};

std::string fault_spec(const FaultCase& fault, std::int64_t index) {
    if (std::string(fault.kind) != "genfail" || index == first_planned_index) {
        return std::string(fault.kind) + "@" + std::to_string(index);
    }
    // genfail@k fails the load of the worker that starts at k: a fault at k-1 makes one.
    return "crash@" + std::to_string(index - 1) + ",genfail@" + std::to_string(index);
}

TEST_P(FaultMatrix, EveryCandidateGetsOneTerminalStatusAndTheRestAreMeasured) {
    const auto& [backend, fault, position] = GetParam();
    const std::int64_t faulting = first_planned_index + static_cast<std::int64_t>(position);
    const bool genfail = std::string(fault.kind) == "genfail";
    const Chunk chunk = make_chunk(backend, chunk_size);

    Supervisor supervisor(make_config(backend, fault_spec(fault, faulting)));
    const Recording run = record_chunk(supervisor, chunk);

    ASSERT_EQ(run.chunks_done, 1);
    EXPECT_FALSE(run.stopped);
    ASSERT_EQ(run.results.size(), chunk_size);
    ASSERT_TRUE(std::holds_alternative<ChunkDone>(run.events.back()));

    // The first worker is the one that loaded first (genfail@first: the one that failed).
    const int first_pid =
        genfail && position == 0 ? run.restarts.at(0).old_pid : run.loads.at(0).device.worker_pid;
    for (std::size_t i = 0; i < chunk_size; ++i) {
        const std::int64_t index = first_planned_index + static_cast<std::int64_t>(i);
        const tuning::CandidateResult& result = run.only(index);
        SCOPED_TRACE("candidate #" + std::to_string(index) + ": " + result.detail);
        EXPECT_TRUE(tuning::is_terminal(result.status));
        EXPECT_EQ(result.candidate, chunk.candidates[i].id);
        EXPECT_EQ(result.chunk, chunk.chunk_id);
        EXPECT_EQ(result.where.rank, 5);
        EXPECT_EQ(result.shape_key, family::shape_key_string(tiny_shape()));

        const bool is_fault_target = !genfail && index == faulting;
        const bool crashed_for_genfail = genfail && position > 0 && index == faulting - 1;
        if (is_fault_target) {
            EXPECT_EQ(result.status, fault.status);
            EXPECT_TRUE(result.fault_injected);
            EXPECT_TRUE(contains(result.detail, fault.detail));
            EXPECT_TRUE(contains(result.detail, "fault injection"));
            if (fault.replaces_worker) {
                EXPECT_TRUE(contains(result.detail,
                                     "worker pid " + std::to_string(result.where.worker_pid)));
            }
        } else if (crashed_for_genfail) {
            EXPECT_EQ(result.status, Status::crash);
        } else {
            EXPECT_EQ(result.status, Status::ok);
            EXPECT_FALSE(result.fault_injected);
            EXPECT_EQ(result.timing.n_raw, chunk.measurement.iters);
            EXPECT_GT(result.timing.mean_us, 0.0);
        }

        // The candidate that took the worker down: the injected one, or for genfail the
        // crash that makes the next worker's load the one that fails.
        const std::int64_t took_worker_down = genfail ? faulting - 1 : faulting;
        if (index < took_worker_down) {
            EXPECT_EQ(result.where.worker_pid, first_pid) << "measured before the fault";
        }
        if (index > took_worker_down) {
            if (fault.replaces_worker) {
                EXPECT_NE(result.where.worker_pid, first_pid) << "behind the fault: a fresh worker";
            } else {
                EXPECT_EQ(result.where.worker_pid, first_pid) << "the worker kept going";
            }
        }
        if (genfail && index >= faulting) {
            EXPECT_NE(result.where.worker_pid, run.restarts.back().old_pid)
                << "the worker whose load failed measures nothing";
        }
    }

    if (genfail) {
        // crash (if any) + one failed load, retried with a fresh worker that then succeeds.
        EXPECT_EQ(run.restarts.size(), position == 0 ? 1U : 2U);
        EXPECT_TRUE(contains(run.restarts.back().reason, "genfail@"));
        EXPECT_TRUE(run.load_failures.empty());
    } else {
        EXPECT_EQ(run.restarts.size(), fault.replaces_worker ? 1U : 0U);
    }

    if (fault.status == Status::timeout && !genfail) {
        const auto& hung = run.only(faulting);
        const double lost_after_s =
            static_cast<double>(hung.finished_unix_ns - hung.started_unix_ns) * 1e-9;
        EXPECT_GE(lost_after_s, chunk.candidate_timeout_s - 0.05);
        // Two seconds of slack beyond the deadline for a loaded 2-core CI machine waking the
        // supervisor late; a hang still costs seconds, not minutes.
        EXPECT_LT(lost_after_s, chunk.candidate_timeout_s + 2.0) << "a hang costs its deadline";
    }
}

// The sim backend is deterministic per (shape, candidate, seed, device), so every candidate
// the fault did not hit must report exactly what a fault-free run reports: nothing measured
// is lost, re-measured differently or attributed to the wrong candidate.
class SimFaultMatrix : public FaultMatrix {};

TEST_P(SimFaultMatrix, NumbersOfUnaffectedCandidatesMatchAFaultFreeRun) {
    const auto& [backend, fault, position] = GetParam();
    const std::int64_t faulting = first_planned_index + static_cast<std::int64_t>(position);
    Supervisor clean_supervisor(make_config("sim"));
    const Recording clean = record_chunk(clean_supervisor, make_chunk("sim", chunk_size));
    Supervisor faulty_supervisor(make_config("sim", fault_spec(fault, faulting)));
    const Recording faulty = record_chunk(faulty_supervisor, make_chunk("sim", chunk_size));
    for (const auto& [index, results] : faulty.results) {
        ASSERT_EQ(results.size(), 1U);
        if (results.front().status != Status::ok) continue;
        EXPECT_EQ(results.front().timing.mean_us, clean.only(index).timing.mean_us) << index;
        EXPECT_EQ(results.front().timing.median_us, clean.only(index).timing.median_us) << index;
    }
}

std::string case_name(const ::testing::TestParamInfo<Param>& info) {
    static const char* positions[] = {"first", "middle", "last"};
    return std::get<0>(info.param) + "_" + std::get<1>(info.param).kind + "_at_" +
           positions[std::get<2>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Sim, FaultMatrix,
                         ::testing::Combine(::testing::Values(std::string("sim")),
                                            ::testing::ValuesIn(fault_cases),
                                            ::testing::Values(0U, 1U, 2U)),
                         case_name);
// cpu timings are real, not reproducible: only the sim can be compared number for number.
INSTANTIATE_TEST_SUITE_P(Sim, SimFaultMatrix,
                         ::testing::Combine(::testing::Values(std::string("sim")),
                                            ::testing::ValuesIn(fault_cases),
                                            ::testing::Values(0U, 1U, 2U)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Cpu, FaultMatrix,
                         ::testing::Combine(::testing::Values(std::string("cpu")),
                                            ::testing::ValuesIn(fault_cases),
                                            ::testing::Values(0U, 1U, 2U)),
                         case_name);

}  // namespace
}  // namespace fhmoe::supervisor::testing
