#pragma once

// The cpu backend: the FHMoE op as serving runs it (sort -> MXFP8 quant -> stage1 ->
// [quant] -> stage2 [-> reduce]), honouring every field of family::Candidate so that
// different candidates compute differently and time differently.

#include <cstdint>
#include <memory>
#include <span>

#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/unsupported_candidate.hpp"
#include "fhmoe/tuning/result.hpp"

namespace fhmoe::kernels {

// Threads cooperating on one stage1 tile (Stage1Config::waves) and on the whole op.
inline constexpr int kMaxCpuWavesPerTile = 8;
inline constexpr int kMaxCpuThreads = 64;

// A wrong kernel on purpose, for tests and the "wrong output" fault injection: the accuracy
// check must catch it.
enum class CpuOpFault : std::uint8_t {
    none,
    // Stage2 reads each routed weight block's E8M0 scale from the next block along K.
    stage2_scale_off_by_one,
};

struct CpuOpOptions {
    // Workers for the tile grids; 0 = std::thread::hardware_concurrency(), capped at
    // kMaxCpuThreads. Stage1 runs max(1, threads / waves) tile groups of `waves` threads.
    int threads = 0;
    CpuOpFault fault = CpuOpFault::none;
};

class CpuFhmoeOp {
public:
    // Validates the candidate against the shape (throws UnsupportedCandidate) and allocates
    // every workspace buffer up front, so run() allocates nothing.
    CpuFhmoeOp(const family::ShapeKey& shape, const family::Candidate& candidate);
    CpuFhmoeOp(const family::ShapeKey& shape, const family::Candidate& candidate,
               const CpuOpOptions& options);
    ~CpuFhmoeOp();
    CpuFhmoeOp(const CpuFhmoeOp&) = delete;
    CpuFhmoeOp& operator=(const CpuFhmoeOp&) = delete;

    // Runs the whole op on `problem` (which must have the constructor's shape) and writes
    // out_bf16 [M, H]. When `stages` is given, it receives the per-stage wall time of this run.
    void run(const Problem& problem, std::span<std::uint16_t> out_bf16,
             tuning::StageSplit* stages = nullptr);

    // Bytes this op allocates beyond the problem (workspace), for memory accounting.
    std::size_t workspace_bytes() const;

    // Threads the op runs on (the caller included).
    int thread_count() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace fhmoe::kernels
