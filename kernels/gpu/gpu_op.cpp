// The whole FHMoE op on one stream, as serving runs it: sort (and zero the output for
// atomic accumulation, as moe_sorting zeroes moe_buf) -> MXFP8 quantization of x -> stage1
// -> [MXFP8 quantization of h, unless stage1 fuses it] -> stage2 -> [slot reduction, in
// reduce mode]. Device events between the stages give the per-stage split; the first and
// the last give the op's time.

#include <algorithm>
#include <array>
#include <string>

#include "fhmoe/kernels/gpu_op.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/gpu_problem_impl.hpp"
#include "gpu/launch_plan.hpp"
#include "gpu/routing_kernels.hpp"
#include "gpu/stage_args.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {
namespace {

// Event boundaries: start, sorted, quantized, stage1, requantized, stage2, reduced.
constexpr std::size_t kEvents = 7;

float elapsed_ms(const gpu::DeviceEvent& from, const gpu::DeviceEvent& to) {
    float ms = 0.0f;
    FHMOE_GPU_CHECK(hipEventElapsedTime(&ms, from.get(), to.get()));
    return ms;
}

const family::ShapeKey& checked(const family::ShapeKey& shape, const family::Candidate& candidate) {
    validate_shape(shape);
    check_gpu_candidate(shape, candidate);
    return shape;
}

std::size_t count(std::int64_t n) { return static_cast<std::size_t>(n); }

// The most sorted rows the routing can fill: each expert in use opens at most one block_m
// block beyond its entries' own share, so valid rows <= (ceil(n / block_m) + min(E, n)) *
// block_m for n = tokens * topk entries. Stage1's K split sizes its partial sums by it.
std::int64_t split_rows_bound(const ProblemDims& dims, int block_m) {
    const std::int64_t entries = dims.slot_rows();
    return ((entries + block_m - 1) / block_m + std::min(dims.experts, entries)) * block_m;
}

}  // namespace

struct GpuFhmoeOp::Impl {
    Impl(const family::ShapeKey& shape_key, const family::Candidate& chosen)
        : shape(shape_key),
          candidate(chosen),
          dims(shape_key),
          atomic(chosen.stage2.mode == family::Stage2Mode::atomic),
          geometry1(gpu::stage1_geometry(chosen.stage1)),
          geometry2(gpu::stage2_geometry(chosen.stage2)),
          capacity_rows(dims.slot_rows() + dims.experts * chosen.block_m),
          sorted_ids(count(capacity_rows)),
          sorted_weights(count(capacity_rows)),
          block_experts(count(capacity_rows / chosen.block_m + 1)),
          valid_rows(1),
          expert_rows(count(dims.experts)),
          a1_codes(dims.x_elements()),
          a1_scales(count(dims.tokens * dims.hidden_blocks())),
          a2_bf16(chosen.stage1.fused_fp8_out ? 0 : count(dims.slot_rows() * dims.inter)),
          a2_codes(count(dims.slot_rows() * dims.inter)),
          a2_scales(count(dims.slot_rows() * dims.inter_blocks())),
          slot_out(atomic ? 0 : count(dims.slot_rows() * dims.hidden)),
          out(dims.x_elements()),
          tile_counter(1),
          partial_rows(std::min(capacity_rows, split_rows_bound(dims, chosen.block_m))),
          k_splits(gpu::stage1_k_splits(geometry1,
                                        (partial_rows + geometry1.tile_m - 1) / geometry1.tile_m *
                                            (dims.inter / geometry1.tile_n),
                                        dims.hidden, gpu::bound_gpu_device().multiprocessors)),
          partials(k_splits > 1 ? count(k_splits * partial_rows * dims.inter * 2) : 0) {
        const gpu::GpuDeviceFacts& device = gpu::bound_gpu_device();
        persistent_workgroups =
            chosen.stage2.persistent
                ? gpu::stage2_workgroups_per_multiprocessor(geometry2) * device.multiprocessors
                : 0;
    }

    // Tiles of a stage over the sort's capacity: tiles past the valid rows return at once.
    std::int64_t tiles(const gpu::TileGeometry& g, std::int64_t columns) const {
        return (capacity_rows + g.tile_m - 1) / g.tile_m * (columns / g.tile_n);
    }

    gpu::SortedView sorted_view() const {
        return {sorted_ids.data(), sorted_weights.data(), block_experts.data(), valid_rows.data(),
                candidate.block_m};
    }

    gpu::ShapeView shape_view() const {
        return {dims.tokens, dims.hidden, dims.inter, dims.topk, dims.shared_expert};
    }

    void enqueue(const GpuProblem::Impl::Copy& in) {
        hipStream_t s = stream.get();
        FHMOE_GPU_CHECK(hipEventRecord(events[0].get(), s));
        gpu::launch_moe_sorting(in.topk_ids.data(), in.topk_weights.data(), dims.tokens, dims.topk,
                                dims.experts, candidate.block_m,
                                {sorted_ids.data(), sorted_weights.data(), block_experts.data(),
                                 valid_rows.data(), expert_rows.data()},
                                s);
        if (atomic) FHMOE_GPU_CHECK(hipMemsetAsync(out.data(), 0, out.bytes(), s));
        FHMOE_GPU_CHECK(hipEventRecord(events[1].get(), s));

        gpu::launch_mxfp8_quant(in.x_bf16.data(), dims.tokens, dims.hidden, a1_codes.data(),
                                a1_scales.data(), s);
        FHMOE_GPU_CHECK(hipEventRecord(events[2].get(), s));

        gpu::Stage1Args s1;
        s1.geometry = geometry1;
        s1.shape = shape_view();
        s1.sorted = sorted_view();
        s1.interleaved = candidate.stage1.gate_mode == family::GateMode::interleave;
        s1.fused_fp8_out = candidate.stage1.fused_fp8_out;
        s1.a1_codes = a1_codes.data();
        s1.a1_scales = a1_scales.data();
        s1.w1_fp4 = in.w1_fp4.data();
        s1.w1_scale = in.w1_scale.data();
        s1.shared_w1 = in.shared_w1_fp8.data();
        s1.shared_w1_scale = in.shared_w1_scale.data();
        s1.a2_bf16 = a2_bf16.data();
        s1.a2_codes = a2_codes.data();
        s1.a2_scales = a2_scales.data();
        s1.k_splits = k_splits;
        s1.partials = partials.data();
        s1.partial_rows = partial_rows;
        gpu::launch_stage1(s1, tiles(geometry1, dims.inter), s);
        FHMOE_GPU_CHECK(hipEventRecord(events[3].get(), s));

        if (!candidate.stage1.fused_fp8_out) {
            gpu::launch_mxfp8_quant(a2_bf16.data(), dims.slot_rows(), dims.inter, a2_codes.data(),
                                    a2_scales.data(), s);
        }
        FHMOE_GPU_CHECK(hipEventRecord(events[4].get(), s));

        gpu::Stage2Args s2;
        s2.geometry = geometry2;
        s2.shape = shape_view();
        s2.sorted = sorted_view();
        s2.atomic = atomic;
        s2.persistent = candidate.stage2.persistent;
        s2.tile_counter = tile_counter.data();
        s2.a2_codes = a2_codes.data();
        s2.a2_scales = a2_scales.data();
        s2.w2_fp4 = in.w2_fp4.data();
        s2.w2_scale = in.w2_scale.data();
        s2.shared_w2 = in.shared_w2_fp8.data();
        s2.shared_w2_scale = in.shared_w2_scale.data();
        s2.out_bf16 = out.data();
        s2.slot_out = slot_out.data();
        gpu::launch_stage2(s2, tiles(geometry2, dims.hidden), persistent_workgroups, s);
        FHMOE_GPU_CHECK(hipEventRecord(events[5].get(), s));

        if (!atomic) {
            gpu::launch_slot_reduction(slot_out.data(), dims.tokens, dims.topk, dims.hidden,
                                       out.data(), s);
        }
        FHMOE_GPU_CHECK(hipEventRecord(events[6].get(), s));
    }

    double wait_and_time(tuning::StageSplit* stages) const {
        FHMOE_GPU_CHECK(hipEventSynchronize(events[kEvents - 1].get()));
        if (stages != nullptr) {
            stages->sort_us = 1e3 * elapsed_ms(events[0], events[1]);
            stages->quant_us =
                1e3 * (elapsed_ms(events[1], events[2]) + elapsed_ms(events[3], events[4]));
            stages->stage1_us = 1e3 * elapsed_ms(events[2], events[3]);
            stages->stage2_us = 1e3 * elapsed_ms(events[4], events[5]);
            stages->reduce_us = 1e3 * elapsed_ms(events[5], events[6]);
        }
        return 1e3 * elapsed_ms(events[0], events[kEvents - 1]);
    }

    std::size_t workspace_bytes() const {
        return sorted_ids.bytes() + sorted_weights.bytes() + block_experts.bytes() +
               valid_rows.bytes() + expert_rows.bytes() + a1_codes.bytes() + a1_scales.bytes() +
               a2_bf16.bytes() + a2_codes.bytes() + a2_scales.bytes() + slot_out.bytes() +
               out.bytes() + tile_counter.bytes() + partials.bytes();
    }

    family::ShapeKey shape;
    family::Candidate candidate;
    ProblemDims dims;
    bool atomic;
    gpu::TileGeometry geometry1;
    gpu::TileGeometry geometry2;
    std::int64_t capacity_rows;
    int persistent_workgroups = 0;
    gpu::DeviceBuffer<std::int32_t> sorted_ids;
    gpu::DeviceBuffer<float> sorted_weights;
    gpu::DeviceBuffer<std::int32_t> block_experts;
    gpu::DeviceBuffer<std::int32_t> valid_rows;
    gpu::DeviceBuffer<std::int32_t> expert_rows;
    gpu::DeviceBuffer<std::uint8_t> a1_codes;
    gpu::DeviceBuffer<std::uint8_t> a1_scales;
    gpu::DeviceBuffer<std::uint16_t> a2_bf16;
    gpu::DeviceBuffer<std::uint8_t> a2_codes;
    gpu::DeviceBuffer<std::uint8_t> a2_scales;
    gpu::DeviceBuffer<std::uint16_t> slot_out;
    gpu::DeviceBuffer<std::uint16_t> out;
    gpu::DeviceBuffer<std::uint32_t> tile_counter;
    std::int64_t partial_rows;
    int k_splits;
    gpu::DeviceBuffer<float> partials;  // stage1's K split partial sums (empty without one)
    gpu::DeviceStream stream;
    std::array<gpu::DeviceEvent, kEvents> events;
};

GpuFhmoeOp::GpuFhmoeOp(const family::ShapeKey& shape, const family::Candidate& candidate)
    : impl_(std::make_unique<Impl>(checked(shape, candidate), candidate)) {}

GpuFhmoeOp::~GpuFhmoeOp() = default;

double GpuFhmoeOp::run(const GpuProblem& problem, std::size_t copy, tuning::StageSplit* stages) {
    if (problem.shape() != impl_->shape) {
        throw Error("gpu op built for shape " + family::shape_key_string(impl_->shape) +
                    " was given a problem of shape " + family::shape_key_string(problem.shape()));
    }
    if (copy >= problem.copies()) {
        throw InternalError("gpu problem copy " + std::to_string(copy) + " of " +
                            std::to_string(problem.copies()));
    }
    impl_->enqueue(problem.impl().copies[copy]);
    return impl_->wait_and_time(stages);
}

void GpuFhmoeOp::poison_output() {
    FHMOE_GPU_CHECK(
        hipMemsetAsync(impl_->out.data(), 0xFF, impl_->out.bytes(), impl_->stream.get()));
    FHMOE_GPU_CHECK(hipStreamSynchronize(impl_->stream.get()));
}

void GpuFhmoeOp::download_output(std::span<std::uint16_t> out_bf16) const {
    if (out_bf16.size() != impl_->out.size()) {
        throw Error("gpu op output has " + std::to_string(impl_->out.size()) +
                    " elements, the host buffer " + std::to_string(out_bf16.size()));
    }
    FHMOE_GPU_CHECK(hipStreamSynchronize(impl_->stream.get()));
    FHMOE_GPU_CHECK(
        hipMemcpy(out_bf16.data(), impl_->out.data(), impl_->out.bytes(), hipMemcpyDeviceToHost));
}

std::size_t GpuFhmoeOp::workspace_bytes() const { return impl_->workspace_bytes(); }

}  // namespace fhmoe::kernels
