// The whole FHMoE op as serving runs it, one phase after another, each phase spread over
// the op's thread pool: sort (and zero the output for atomic accumulation, as moe_sorting
// zeroes moe_buf) -> MXFP8 quantization of x -> stage1 -> [MXFP8 quantization of h, when
// stage1 does not fuse it] -> stage2 -> [slot reduction, in reduce mode].

#include "fhmoe/kernels/cpu_op.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "cpu/candidate_limits.hpp"
#include "cpu/moe_sorting.hpp"
#include "cpu/mxfp8_quant_pass.hpp"
#include "cpu/stage1.hpp"
#include "cpu/stage2.hpp"
#include "cpu/thread_pool.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {
namespace {

int resolve_thread_count(int requested) {
    if (requested < 0 || requested > kMaxCpuThreads) {
        throw Error("cpu op threads " + std::to_string(requested) + " is outside [0, " +
                    std::to_string(kMaxCpuThreads) + "]");
    }
    if (requested > 0) return requested;
    const auto hardware = static_cast<int>(std::thread::hardware_concurrency());
    return std::clamp(hardware, 1, kMaxCpuThreads);
}

double microseconds_between(std::chrono::steady_clock::time_point begin,
                            std::chrono::steady_clock::time_point end) {
    return std::chrono::duration<double, std::micro>(end - begin).count();
}

// [begin, end) of `count` items for worker `index` of `workers`.
std::pair<std::int64_t, std::int64_t> static_share(std::int64_t count, int index, int workers) {
    return {count * index / workers, count * (index + 1) / workers};
}

}  // namespace

struct CpuFhmoeOp::Impl {
    Impl(const family::ShapeKey& shape_key, const family::Candidate& chosen,
         const CpuOpOptions& options)
        : shape(shape_key),
          candidate(chosen),
          dims(shape_key),
          threads(resolve_thread_count(options.threads)),
          pool(std::max(threads, chosen.stage1.waves)),
          routing(dims, chosen.block_m),
          a1_codes(dims.x_elements()),
          a1_scales(static_cast<std::size_t>(dims.tokens * dims.hidden_blocks())),
          a2_bf16(chosen.stage1.fused_fp8_out
                      ? 0
                      : static_cast<std::size_t>(dims.slot_rows() * dims.inter)),
          a2_codes(static_cast<std::size_t>(dims.slot_rows() * dims.inter)),
          a2_scales(static_cast<std::size_t>(dims.slot_rows() * dims.inter_blocks())),
          slot_out(chosen.stage2.mode == family::Stage2Mode::reduce
                       ? static_cast<std::size_t>(dims.slot_rows() * dims.hidden)
                       : 0),
          stage1(dims, chosen.block_m, chosen.stage1, std::max(1, threads / chosen.stage1.waves)),
          stage2(dims, chosen.block_m, chosen.stage2, threads,
                 options.fault == CpuOpFault::stage2_scale_off_by_one ? 1 : 0) {}

    void quantize_activations(const Problem& problem) {
        auto task = [&](int worker) {
            const auto [begin, end] = static_share(dims.tokens, worker, threads);
            quantize_bf16_rows_mxfp8(problem.x_bf16.data(), dims.hidden, begin, end,
                                     a1_codes.data(), a1_scales.data());
        };
        pool.run(threads, task);
    }

    void quantize_stage1_output() {
        auto task = [&](int worker) {
            const auto [begin, end] = static_share(dims.slot_rows(), worker, threads);
            quantize_bf16_rows_mxfp8(a2_bf16.data(), dims.inter, begin, end, a2_codes.data(),
                                     a2_scales.data());
        };
        pool.run(threads, task);
    }

    void reduce_slots(std::uint16_t* out) {
        auto task = [&](int worker) {
            const auto [begin, end] = static_share(dims.tokens, worker, threads);
            reduce_slot_rows(slot_out.data(), dims.topk, dims.hidden, begin, end, out);
        };
        pool.run(threads, task);
    }

    void run(const Problem& problem, std::span<std::uint16_t> out, tuning::StageSplit* stages) {
        using Clock = std::chrono::steady_clock;
        const bool atomic = candidate.stage2.mode == family::Stage2Mode::atomic;
        const auto started = Clock::now();
        sort_tokens_by_expert(problem, routing);
        if (atomic) std::fill(out.begin(), out.end(), std::uint16_t{0});
        const auto sorted = Clock::now();

        quantize_activations(problem);
        const auto quantized = Clock::now();

        const Stage1Io io1{&problem,       &routing,        a1_codes.data(), a1_scales.data(),
                           a2_bf16.data(), a2_codes.data(), a2_scales.data()};
        auto stage1_task = [&](int participant) { stage1.run(io1, participant); };
        pool.run(stage1.participants(), stage1_task);
        const auto stage1_done = Clock::now();

        if (!candidate.stage1.fused_fp8_out) quantize_stage1_output();
        const auto requantized = Clock::now();

        const Stage2Io io2{&problem,         &routing,   a2_codes.data(),
                           a2_scales.data(), out.data(), slot_out.data()};
        stage2.prepare();
        auto stage2_task = [&](int participant) { stage2.run(io2, participant); };
        pool.run(stage2.participants(), stage2_task);
        const auto stage2_done = Clock::now();

        if (!atomic) reduce_slots(out.data());
        const auto finished = Clock::now();

        if (stages != nullptr) {
            stages->sort_us = microseconds_between(started, sorted);
            stages->quant_us = microseconds_between(sorted, quantized) +
                               microseconds_between(stage1_done, requantized);
            stages->stage1_us = microseconds_between(quantized, stage1_done);
            stages->stage2_us = microseconds_between(requantized, stage2_done);
            stages->reduce_us = microseconds_between(stage2_done, finished);
        }
    }

    std::size_t workspace_bytes() const {
        return routing.bytes() + a1_codes.size() + a1_scales.size() +
               a2_bf16.size() * sizeof(std::uint16_t) + a2_codes.size() + a2_scales.size() +
               slot_out.size() * sizeof(std::uint16_t) + stage1.workspace_bytes() +
               stage2.workspace_bytes();
    }

    family::ShapeKey shape;
    family::Candidate candidate;
    ProblemDims dims;
    int threads;
    ThreadPool pool;
    SortedRouting routing;
    std::vector<std::uint8_t> a1_codes;
    std::vector<std::uint8_t> a1_scales;
    std::vector<std::uint16_t> a2_bf16;
    std::vector<std::uint8_t> a2_codes;
    std::vector<std::uint8_t> a2_scales;
    std::vector<std::uint16_t> slot_out;
    Stage1Kernel stage1;
    Stage2Kernel stage2;
};

namespace {

const family::ShapeKey& checked(const family::ShapeKey& shape, const family::Candidate& candidate) {
    validate_shape(shape);
    check_cpu_candidate(shape, candidate);
    return shape;
}

}  // namespace

CpuFhmoeOp::CpuFhmoeOp(const family::ShapeKey& shape, const family::Candidate& candidate)
    : CpuFhmoeOp(shape, candidate, CpuOpOptions{}) {}

CpuFhmoeOp::CpuFhmoeOp(const family::ShapeKey& shape, const family::Candidate& candidate,
                       const CpuOpOptions& options)
    : impl_(std::make_unique<Impl>(checked(shape, candidate), candidate, options)) {}

CpuFhmoeOp::~CpuFhmoeOp() = default;

void CpuFhmoeOp::run(const Problem& problem, std::span<std::uint16_t> out_bf16,
                     tuning::StageSplit* stages) {
    if (problem.shape != impl_->shape) {
        throw Error("cpu op built for shape " + family::shape_key_string(impl_->shape) +
                    " was given a problem of shape " + family::shape_key_string(problem.shape));
    }
    validate_problem(problem);
    if (out_bf16.size() != impl_->dims.x_elements()) {
        throw Error("cpu op output has " + std::to_string(out_bf16.size()) +
                    " elements, the shape needs " + std::to_string(impl_->dims.x_elements()));
    }
    impl_->run(problem, out_bf16, stages);
}

std::size_t CpuFhmoeOp::workspace_bytes() const { return impl_->workspace_bytes(); }

int CpuFhmoeOp::thread_count() const { return impl_->pool.size(); }

}  // namespace fhmoe::kernels
