#pragma once

// The op on the scalar kernels (the AMD build): sort (and zero the output for atomic
// accumulation, as moe_sorting zeroes moe_buf) -> MXFP8 quantization of x -> stage1 ->
// [MXFP8 quantization of h, unless stage1 fuses it] -> stage2 -> [slot reduction]. Weights are
// dequantized in registers and multiplied with FP32 FMAs (gpu/tile_gemm.hpp). Host side.

#include <algorithm>
#include <cstdint>

#include "fhmoe/family/candidate.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/gpu_problem_impl.hpp"
#include "gpu/launch_plan.hpp"
#include "gpu/op_events.hpp"
#include "gpu/op_path_common.hpp"
#include "gpu/routing_kernels.hpp"
#include "gpu/stage_args.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels::gpu {

struct ScalarOpPath {
    ScalarOpPath(const family::ShapeKey& shape_key, const family::Candidate& chosen)
        : candidate(chosen),
          dims(shape_key),
          atomic(chosen.stage2.mode == family::Stage2Mode::atomic),
          geometry1(stage1_geometry(chosen.stage1)),
          geometry2(stage2_geometry(chosen.stage2)),
          capacity_rows(dims.slot_rows() + dims.experts * chosen.block_m),
          sorted(capacity_rows, chosen.block_m, dims.experts),
          a1_codes(dims.x_elements()),
          a1_scales(element_count(dims.tokens * dims.hidden_blocks())),
          a2_bf16(chosen.stage1.fused_fp8_out ? 0 : element_count(dims.slot_rows() * dims.inter)),
          a2_codes(element_count(dims.slot_rows() * dims.inter)),
          a2_scales(element_count(dims.slot_rows() * dims.inter_blocks())),
          slot_out(atomic ? 0 : element_count(dims.slot_rows() * dims.hidden)),
          out(dims.x_elements()),
          tile_counter(1),
          partial_rows(std::min(capacity_rows, dims.sorted_rows_bound(chosen.block_m))),
          k_splits(chosen.stage1.k_splits > 0
                       ? chosen.stage1.k_splits
                       : stage1_k_splits(geometry1,
                                         (partial_rows + geometry1.tile_m - 1) / geometry1.tile_m *
                                             (dims.inter / geometry1.tile_n),
                                         dims.hidden, bound_gpu_device().multiprocessors)),
          partials(k_splits > 1 ? element_count(k_splits * partial_rows * dims.inter * 2) : 0) {
        persistent_workgroups = chosen.stage2.persistent
                                    ? stage2_workgroups_per_multiprocessor(geometry2) *
                                          bound_gpu_device().multiprocessors
                                    : 0;
    }

    // Tiles of a stage over the sort's capacity: tiles past the valid rows return at once.
    std::int64_t tiles(const TileGeometry& g, std::int64_t columns) const {
        return (capacity_rows + g.tile_m - 1) / g.tile_m * (columns / g.tile_n);
    }

    SortedView sorted_view() const { return sorted.view(); }

    ShapeView shape_view() const { return shape_view_of(dims); }

    void enqueue(const GpuProblem::Impl::Inputs& in, const GpuProblem::Impl::Weights& w,
                 hipStream_t s, const OpEvents* events) {
        mark_stage(events, 0, s);
        launch_moe_sorting(in.topk_ids.data(), in.topk_weights.data(), dims.tokens, dims.topk,
                           dims.experts, candidate.block_m, sorted.buffers(), s);
        if (atomic) FHMOE_GPU_CHECK(hipMemsetAsync(out.data(), 0, out.bytes(), s));
        mark_stage(events, 1, s);

        launch_mxfp8_quant(in.x_bf16.data(), dims.tokens, dims.hidden, a1_codes.data(),
                           a1_scales.data(), s);
        mark_stage(events, 2, s);

        Stage1Args s1;
        s1.geometry = geometry1;
        s1.shape = shape_view();
        s1.sorted = sorted_view();
        s1.interleaved = candidate.stage1.gate_mode == family::GateMode::interleave;
        s1.fused_fp8_out = candidate.stage1.fused_fp8_out;
        s1.a1_codes = a1_codes.data();
        s1.a1_scales = a1_scales.data();
        s1.w1_fp4 = w.w1_fp4;
        s1.w1_scale = w.w1_scale;
        s1.shared_w1 = w.shared_w1_fp8;
        s1.shared_w1_scale = w.shared_w1_scale;
        s1.a2_bf16 = a2_bf16.data();
        s1.a2_codes = a2_codes.data();
        s1.a2_scales = a2_scales.data();
        s1.k_splits = k_splits;
        s1.partials = partials.data();
        s1.partial_rows = partial_rows;
        launch_stage1(s1, tiles(geometry1, dims.inter), s);
        mark_stage(events, 3, s);

        if (!candidate.stage1.fused_fp8_out) {
            launch_mxfp8_quant(a2_bf16.data(), dims.slot_rows(), dims.inter, a2_codes.data(),
                               a2_scales.data(), s);
        }
        mark_stage(events, 4, s);

        Stage2Args s2;
        s2.geometry = geometry2;
        s2.shape = shape_view();
        s2.sorted = sorted_view();
        s2.atomic = atomic;
        s2.persistent = candidate.stage2.persistent;
        s2.tile_counter = tile_counter.data();
        s2.a2_codes = a2_codes.data();
        s2.a2_scales = a2_scales.data();
        s2.w2_fp4 = w.w2_fp4;
        s2.w2_scale = w.w2_scale;
        s2.shared_w2 = w.shared_w2_fp8;
        s2.shared_w2_scale = w.shared_w2_scale;
        s2.out_bf16 = out.data();
        s2.slot_out = slot_out.data();
        launch_stage2(s2, tiles(geometry2, dims.hidden), persistent_workgroups, s);
        mark_stage(events, 5, s);

        if (!atomic) {
            launch_slot_reduction(slot_out.data(), dims.tokens, dims.topk, dims.hidden, out.data(),
                                  s);
        }
        mark_stage(events, 6, s);
    }

    std::size_t workspace_bytes() const {
        return sorted.bytes() + a1_codes.bytes() + a1_scales.bytes() + a2_bf16.bytes() +
               a2_codes.bytes() + a2_scales.bytes() + slot_out.bytes() + out.bytes() +
               tile_counter.bytes() + partials.bytes();
    }

    family::Candidate candidate;
    ProblemDims dims;
    bool atomic;
    TileGeometry geometry1;
    TileGeometry geometry2;
    std::int64_t capacity_rows;
    int persistent_workgroups = 0;
    SortedRouting sorted;
    DeviceBuffer<std::uint8_t> a1_codes;
    DeviceBuffer<std::uint8_t> a1_scales;
    DeviceBuffer<std::uint16_t> a2_bf16;
    DeviceBuffer<std::uint8_t> a2_codes;
    DeviceBuffer<std::uint8_t> a2_scales;
    DeviceBuffer<std::uint16_t> slot_out;
    DeviceBuffer<std::uint16_t> out;
    DeviceBuffer<std::uint32_t> tile_counter;
    std::int64_t partial_rows;
    int k_splits;
    DeviceBuffer<float> partials;  // stage1's K split partial sums (empty without one)
};

}  // namespace fhmoe::kernels::gpu
