#pragma once

// The gpu backend of the op: the same FHMoE op as kernels/cpu (sort -> MXFP8 quant ->
// stage1 -> [quant] -> stage2 [-> reduce]) as device kernels, written once in HIP syntax
// and compiled by nvcc (NVIDIA) or hipcc (AMD). Every field of family::Candidate changes
// what runs on the device (kernels/gpu/tile_geometry.hpp says how). Only in builds with
// FHMOE_GPU_BACKEND=CUDA or HIP.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "fhmoe/kernels/unsupported_candidate.hpp"
#include "fhmoe/tuning/result.hpp"

namespace fhmoe::kernels {

// A device runtime call failed. After a kernel fault (an illegal address is error 700) the
// context stays unusable for the life of the process: the caller must not time anything in
// it again.
class GpuRuntimeError : public Error {
public:
    GpuRuntimeError(int code, const std::string& message) : Error(message), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

// A device allocation failed. A std::bad_alloc, so the worker reports oom_runtime; the
// context stays usable.
class GpuOutOfMemory : public std::bad_alloc {
public:
    explicit GpuOutOfMemory(std::string message) : message_(std::move(message)) {}
    const char* what() const noexcept override { return message_.c_str(); }

private:
    std::string message_;
};

// A Problem's weights in device memory (on NVIDIA in the matrix path's arrangement), as
// `copies` whole copies. Apart from the problem's own inputs so that every token count of one
// model can share them: a worker tuning a model's token counts one after another arranges and
// uploads its weights once, as serving loads a model once for every batch.
class GpuWeights {
public:
    GpuWeights(const Problem& problem, std::size_t copies);
    ~GpuWeights();
    GpuWeights(const GpuWeights&) = delete;
    GpuWeights& operator=(const GpuWeights&) = delete;

    // Whether these are `problem`'s weights: the same seed, a shape that shares_weights.
    bool serves(const Problem& problem) const;
    std::size_t copies() const;
    std::size_t device_bytes() const;

    struct Impl;
    const Impl& impl() const { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

// A Problem's inputs in device memory, as input sets that timed runs rotate over so that no
// run finds its weights in the L2 cache (METHOD.md: rotate input sets): set 0 is the problem
// itself (the checked run uses it), further sets route the same tokens to other experts, and
// the weights' whole copies serve shapes small enough to fit in the cache
// (kernels/gpu/gpu_problem_impl.hpp). copies() is the number of input sets.
class GpuProblem {
public:
    // Uploads the problem's weights as `copies` copies of its own.
    GpuProblem(const Problem& problem, std::size_t copies);
    // Uses `weights`, which must serve `problem` (throws fhmoe::Error otherwise).
    GpuProblem(const Problem& problem, std::shared_ptr<const GpuWeights> weights);
    ~GpuProblem();
    GpuProblem(const GpuProblem&) = delete;
    GpuProblem& operator=(const GpuProblem&) = delete;

    const family::ShapeKey& shape() const;
    std::size_t copies() const;
    // The inputs' bytes and the weights' (shared or not).
    std::size_t device_bytes() const;
    const std::shared_ptr<const GpuWeights>& weights() const;

    struct Impl;
    const Impl& impl() const { return *impl_; }

private:
    std::unique_ptr<Impl> impl_;
};

class GpuFhmoeOp {
public:
    // Validates the candidate against the shape and the device (throws UnsupportedCandidate)
    // and allocates every workspace buffer up front (throws GpuOutOfMemory), so a run
    // allocates nothing.
    GpuFhmoeOp(const family::ShapeKey& shape, const family::Candidate& candidate);
    ~GpuFhmoeOp();
    GpuFhmoeOp(const GpuFhmoeOp&) = delete;
    GpuFhmoeOp& operator=(const GpuFhmoeOp&) = delete;

    // Runs the whole op on copy `copy` of `problem` and waits for it. With `stages`, the
    // per-stage split of this run, from device events between the stages. Returns the
    // device time of the whole op in microseconds (one event pair around it).
    double run(const GpuProblem& problem, std::size_t copy, tuning::StageSplit* stages = nullptr);

    // The same op as a device graph: captured once per input set on first use, then replayed
    // (decode serving replays graphs, so launch gaps are what serving sees). Returns the
    // replay's device time in microseconds (one event pair around the graph launch).
    double run_graph(const GpuProblem& problem, std::size_t copy);

    // The op inside a larger graph, as a model's decode step holds one per layer: one device
    // graph of the op once per input set, in order (captured on first use), replayed; returns
    // the replay's device time divided by the number of ops, in microseconds. What it leaves
    // out against run_graph is the graph launch's own latency and the event pair, paid once a
    // step in serving, not once an op. The output is input set 0's (the chain ends with it).
    double run_graph_chain(const GpuProblem& problem);

    // Fills the device output with NaNs (bf16 0xFFFF), so that a check after the next run
    // proves every element was written.
    void poison_output();

    // Copies the bf16 output [M, H] of the last run to the host.
    void download_output(std::span<std::uint16_t> out_bf16) const;

    // Device bytes this op allocated beyond the problem.
    std::size_t workspace_bytes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Throws UnsupportedCandidate naming the first field the gpu backend cannot honour on this
// shape (a tile that does not divide, a block over the device's thread or shared-memory
// limit). Needs the device bound (gpu_device.hpp) for its limits.
void check_gpu_candidate(const family::ShapeKey& shape, const family::Candidate& candidate);

}  // namespace fhmoe::kernels
