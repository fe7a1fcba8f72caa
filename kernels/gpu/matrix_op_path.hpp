#pragma once

// The op on the matrix (tensor-core) kernels, the NVIDIA build's path: routing -> stage1 ->
// [MXFP8 quantization of h, unless stage1 fuses it] -> stage2 -> [slot reduction]. At decode
// sizes (tokens * topk <= kFusedRoutingEntries) the sort, the quantization of x and the
// zeroing of the output are one launch; above, the three-launch sort, the quantization and a
// memset. Workspaces are sized by the most sorted rows the routing can fill, and so are the
// grids: no workgroup is launched for capacity no routing can reach. Host side.

#include <algorithm>
#include <cstdint>

#include "fhmoe/family/candidate.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_device.hpp"
#include "gpu/gpu_problem_impl.hpp"
#include "gpu/matrix_args.hpp"
#include "gpu/op_events.hpp"
#include "gpu/op_path_common.hpp"
#include "gpu/routing_kernels.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels::gpu {

struct MatrixOpPath {
    static bool routes_in_one_launch(const ProblemDims& dims) {
        return dims.slot_rows() <= kFusedRoutingEntries && dims.experts <= kFusedRoutingExperts;
    }

    MatrixOpPath(const family::ShapeKey& shape_key, const family::Candidate& chosen)
        : candidate(chosen),
          dims(shape_key),
          atomic(chosen.stage2.mode == family::Stage2Mode::atomic),
          fused_routing(routes_in_one_launch(dims)),
          routed_rows_per_expert(shape_key.token * shape_key.routed_topk() /
                                 std::max<std::int64_t>(shape_key.routed_experts(), 1)),
          staged_activations(stages_activations(chosen, routed_rows_per_expert)),
          // A top-k routing gives no expert more slots than there are tokens.
          one_token_group(matrix_tiles_are_one_token_group(dims.tokens)),
          rows(dims.sorted_rows_bound(chosen.block_m)),
          stage1_tiles((rows + chosen.stage1.tile_m - 1) / chosen.stage1.tile_m *
                       (dims.inter / chosen.stage1.tile_n)),
          stage2_tiles((rows + chosen.stage2.tile_m - 1) / chosen.stage2.tile_m *
                       (dims.hidden / chosen.stage2.tile_n)),
          stage1_workgroups_per_multiprocessor(
              stage1_occupancy(chosen, staged_activations, one_token_group)),
          k_splits(
              stage1_k_splits(chosen, dims, stage1_tiles, stage1_workgroups_per_multiprocessor)),
          sorted(rows, chosen.block_m, dims.experts),
          a1(element_count((dims.tokens + 1) * dims.hidden)),
          a1_scales(element_count((dims.tokens + 1) * dims.hidden_blocks())),
          h_bf16(chosen.stage1.fused_fp8_out ? 0 : element_count(rows * dims.inter)),
          h_codes(element_count(rows * dims.inter)),
          h_scales(element_count(rows * dims.inter_blocks())),
          a1_values(matrix_uses_shared_tile(chosen.stage1.tile_m)
                        ? element_count((dims.tokens + 1) * dims.hidden)
                        : 0),
          h_values(matrix_uses_shared_tile(chosen.stage2.tile_m) ? element_count(rows * dims.inter)
                                                                 : 0),
          slot_out(atomic ? 0 : element_count(dims.slot_rows() * dims.hidden)),
          out(dims.x_elements()),
          tile_counter(1),
          partials(k_splits > 1 ? element_count(stage1_tiles * k_splits * chosen.stage1.tile_m *
                                                chosen.stage1.tile_n * 2)
                                : 0),
          split_counters(k_splits > 1 ? element_count(stage1_tiles) : 0),
          warpgroup_activation_bytes(warpgroup_bytes(chosen, staged_activations)),
          stage1_shared_tiles_first(stage1_shared_first(chosen, dims, routed_rows_per_expert,
                                                        stage1_tiles * k_splits,
                                                        stage1_workgroups_per_multiprocessor)),
          stage2_shared_tiles_first(
              stage2_shared_first(chosen, dims, routed_rows_per_expert, stage2_tiles)),
          stage2_starts_early(matrix_stage2_starts_early(routed_rows_per_expert)),
          stage2_shallow_ring(matrix_stage2_takes_shallow_ring(
              chosen.stage2.tile_m, chosen.stage2.tile_n, chosen.stage2.tile_k,
              chosen.stage2.persistent, one_token_group && stage2_warpgroup_bytes(chosen, dims) > 0,
              stage2_warpgroup_bytes(chosen, dims), stage2_tiles,
              bound_gpu_device().multiprocessors)) {
        // Row M of x's codes stays zero: stage1 reads it for padding rows. The split counters
        // start at zero and the last workgroup of each tile puts them back.
        FHMOE_GPU_CHECK(hipMemset(a1.data(), 0, a1.bytes()));
        FHMOE_GPU_CHECK(hipMemset(a1_scales.data(), 0, a1_scales.bytes()));
        FHMOE_GPU_CHECK(hipMemset(h_codes.data(), 0, h_codes.bytes()));
        FHMOE_GPU_CHECK(hipMemset(h_scales.data(), 0, h_scales.bytes()));
        if (h_bf16.size() > 0) FHMOE_GPU_CHECK(hipMemset(h_bf16.data(), 0, h_bf16.bytes()));
        if (a1_values.size() > 0) {
            FHMOE_GPU_CHECK(hipMemset(a1_values.data(), 0, a1_values.bytes()));
        }
        if (h_values.size() > 0) FHMOE_GPU_CHECK(hipMemset(h_values.data(), 0, h_values.bytes()));
        if (split_counters.size() > 0) {
            FHMOE_GPU_CHECK(hipMemset(split_counters.data(), 0, split_counters.bytes()));
        }
        if (chosen.stage2.persistent) {
            persistent_workgroups =
                matrix_stage2_workgroups_per_multiprocessor(
                    chosen.stage2.tile_m, chosen.stage2.tile_n, chosen.stage2.tile_k) *
                bound_gpu_device().multiprocessors;
        }
    }

    // matrix_stage1_stages_activations, where the staged rings fit the device's shared memory
    // (candidate_limits checks the footprint without them).
    static bool stages_activations(const family::Candidate& c,
                                   std::int64_t routed_rows_per_expert) {
        const family::Stage1Config& s1 = c.stage1;
        if (!matrix_stage1_stages_activations(s1.tile_m, s1.waves, s1.k_waves,
                                              routed_rows_per_expert)) {
            return false;
        }
        const int bytes = matrix_stage1_shared_bytes(s1.tile_m, s1.tile_n, s1.tile_k, s1.waves,
                                                     s1.k_waves, s1.fused_fp8_out, true);
        return static_cast<std::uint64_t>(bytes) <= bound_gpu_device().shared_bytes_per_block;
    }

    // How many stage1 workgroups a multiprocessor holds: the kernel that runs, with its
    // activation rings where the warpgroup loop may run.
    static int stage1_occupancy(const family::Candidate& c, bool staged, bool warpgroup_only) {
        const family::Stage1Config& s1 = c.stage1;
        return matrix_stage1_workgroups_per_multiprocessor(
            s1.tile_m, s1.tile_n, s1.tile_k, s1.waves, s1.k_waves, s1.fused_fp8_out, staged,
            warpgroup_bytes(c, staged), warpgroup_only);
    }

    // Stage1's K split: the candidate's, or one wave of the device (matrix_stage1_k_splits) with
    // the kernel that runs (with the split derived from the other build's occupancy the default
    // ran 18 % slower at one DSV4 token).
    static int stage1_k_splits(const family::Candidate& c, const ProblemDims& dims,
                               std::int64_t tiles, int workgroups_per_multiprocessor) {
        const family::Stage1Config& s1 = c.stage1;
        if (s1.k_splits > 0) return s1.k_splits;
        return matrix_stage1_k_splits(tiles, workgroups_per_multiprocessor,
                                      // Large token tiles' K warps split token groups, not K.
                                      matrix_uses_shared_tile(s1.tile_m) ? 1 : s1.k_waves,
                                      dims.hidden / 64, matrix_pairs_per_step(s1.tile_k),
                                      bound_gpu_device().multiprocessors);
    }

    // The shared memory of stage1's warpgroup activation rings, where the candidate takes that
    // loop (matrix_stage1_uses_warpgroup_mma) and the workgroup still fits the device with them;
    // 0 keeps the mma.sync loop.
    static int warpgroup_bytes(const family::Candidate& c, bool staged) {
        const family::Stage1Config& s1 = c.stage1;
        if (!matrix_stage1_uses_warpgroup_mma(s1.tile_m, s1.waves, staged)) return 0;
        const int warps = s1.waves * s1.k_waves;
        const int bytes =
            warps / 4 * matrix_stage1_warpgroup_ring_bytes(matrix_pairs_per_step(s1.tile_k), warps);
        const int before = matrix_stage1_shared_bytes(s1.tile_m, s1.tile_n, s1.tile_k, s1.waves,
                                                      s1.k_waves, s1.fused_fp8_out, false);
        const auto total =
            static_cast<std::uint64_t>(matrix_warpgroup_activations_offset(before) + bytes);
        return total <= bound_gpu_device().shared_bytes_per_block ? bytes : 0;
    }

    // The shared expert's rows: all tokens, padded to the routing's blocks.
    static std::int64_t shared_rows(const family::Candidate& c, const ProblemDims& dims) {
        return (dims.tokens + c.block_m - 1) / c.block_m * c.block_m;
    }

    // The shared expert's tile count where stage1 launches them first
    // (matrix_launches_shared_tiles_first), else 0.
    static std::int64_t stage1_shared_first(const family::Candidate& c, const ProblemDims& dims,
                                            std::int64_t routed_rows_per_expert,
                                            std::int64_t workgroups,
                                            int workgroups_per_multiprocessor) {
        const family::Stage1Config& s1 = c.stage1;
        const std::int64_t one_wave =
            static_cast<std::int64_t>(bound_gpu_device().multiprocessors) *
            workgroups_per_multiprocessor;
        if (!matrix_launches_shared_tiles_first(routed_rows_per_expert, workgroups, one_wave)) {
            return 0;
        }
        return (shared_rows(c, dims) + s1.tile_m - 1) / s1.tile_m * (dims.inter / s1.tile_n);
    }

    // Stage2's (the persistent kernel takes its tiles in index order).
    static std::int64_t stage2_shared_first(const family::Candidate& c, const ProblemDims& dims,
                                            std::int64_t routed_rows_per_expert,
                                            std::int64_t tiles) {
        const family::Stage2Config& s2 = c.stage2;
        if (s2.persistent) return 0;
        const std::int64_t one_wave =
            static_cast<std::int64_t>(bound_gpu_device().multiprocessors) *
            matrix_stage2_workgroups_per_multiprocessor(s2.tile_m, s2.tile_n, s2.tile_k);
        if (!matrix_launches_shared_tiles_first(routed_rows_per_expert, tiles, one_wave)) return 0;
        return (shared_rows(c, dims) + s2.tile_m - 1) / s2.tile_m * (dims.hidden / s2.tile_n);
    }

    // Stage2's: where the candidate takes the warpgroup loop (matrix_stage2_uses_warpgroup_mma)
    // and the workgroup still fits the device with its h rows; 0 keeps the mma.sync loop.
    static int stage2_warpgroup_bytes(const family::Candidate& c, const ProblemDims& dims) {
        const family::Stage2Config& s2 = c.stage2;
        if (!matrix_stage2_uses_warpgroup_mma(s2.tile_m, s2.tile_n, s2.tile_k, s2.persistent,
                                              dims.inter / 64)) {
            return 0;
        }
        const int bytes = matrix_stage2_warpgroup_activation_bytes(dims.inter / 64);
        const auto total = static_cast<std::uint64_t>(
            matrix_warpgroup_activations_offset(
                matrix_stage2_shared_bytes(s2.tile_m, s2.tile_n, s2.tile_k)) +
            bytes);
        return total <= bound_gpu_device().shared_bytes_per_block ? bytes : 0;
    }

    SortedView sorted_view() const { return sorted.view(); }

    static std::uint16_t* values_or_null(DeviceBuffer<std::uint16_t>& values) {
        return values.size() > 0 ? values.data() : nullptr;
    }

    ShapeView shape_view() const { return shape_view_of(dims); }

    void route(const GpuProblem::Impl::Inputs& in, hipStream_t s, const OpEvents* events) {
        if (fused_routing) {
            FusedRoutingArgs r;
            r.x_bf16 = in.x_bf16.data();
            r.topk_ids = in.topk_ids.data();
            r.topk_weights = in.topk_weights.data();
            r.tokens = dims.tokens;
            r.hidden = dims.hidden;
            r.topk = dims.topk;
            r.experts = dims.experts;
            r.block_m = candidate.block_m;
            r.sorted_ids = sorted.sorted_ids.data();
            r.sorted_weights = sorted.sorted_weights.data();
            r.block_experts = sorted.block_experts.data();
            r.valid_rows = sorted.valid_rows.data();
            r.a1 = a1.data();
            r.a1_scales = a1_scales.data();
            r.a1_values = a1_values.size() > 0 ? a1_values.data() : nullptr;
            r.out_bf16 = atomic ? out.data() : nullptr;
            launch_fused_routing(r, s);
            mark_stage(events, 1, s);
            mark_stage(events, 2, s);
            return;
        }
        launch_moe_sorting(in.topk_ids.data(), in.topk_weights.data(), dims.tokens, dims.topk,
                           dims.experts, candidate.block_m, sorted.buffers(), s);
        if (atomic) FHMOE_GPU_CHECK(hipMemsetAsync(out.data(), 0, out.bytes(), s));
        mark_stage(events, 1, s);
        launch_mxfp8_quant_mma(in.x_bf16.data(), dims.tokens, dims.hidden, a1.data(),
                               a1_scales.data(), values_or_null(a1_values), s);
        mark_stage(events, 2, s);
    }

    void enqueue(const GpuProblem::Impl::Inputs& in, const GpuProblem::Impl::Weights& w,
                 hipStream_t s, const OpEvents* events) {
        mark_stage(events, 0, s);
        route(in, s, events);

        MatrixStage1Args s1;
        s1.shape = shape_view();
        s1.sorted = sorted_view();
        s1.tile_m = candidate.stage1.tile_m;
        s1.tile_n = candidate.stage1.tile_n;
        s1.waves = candidate.stage1.waves;
        s1.k_waves = candidate.stage1.k_waves;
        s1.k_splits = k_splits;
        s1.fused_fp8_out = candidate.stage1.fused_fp8_out;
        s1.a1 = a1.data();
        s1.a1_scales = a1_scales.data();
        s1.w1 = w.w1_fp4;
        s1.w1_scale = w.w1_scale;
        s1.shared_w1 = w.shared_w1_fp8;
        s1.shared_w1_scale = w.shared_w1_scale;
        s1.h_bf16 = h_bf16.data();
        s1.h_codes = h_codes.data();
        s1.h_scales = h_scales.data();
        s1.a1_values = a1_values.data();
        s1.h_values = values_or_null(h_values);
        s1.partials = partials.data();
        s1.split_counters = split_counters.data();
        s1.staged_activations = staged_activations;
        s1.warpgroup_activation_bytes = warpgroup_activation_bytes;
        // The plan's kernels expect one token group per tile (the occupancy, the K split); this
        // routing's own count decides (a routing that repeats an expert in a token takes the
        // warpgroup builds with the mma.sync loops beside it).
        const bool launch_one_group =
            one_token_group && matrix_tiles_are_one_token_group(in.most_slots_per_expert);
        s1.warpgroup_only = launch_one_group;
        s1.shared_tiles_first = stage1_shared_tiles_first;
        launch_matrix_stage1(s1, stage1_tiles, candidate.stage1.tile_k, s);
        mark_stage(events, 3, s);

        if (!candidate.stage1.fused_fp8_out) {
            launch_mxfp8_quant_mma(h_bf16.data(), rows, dims.inter, h_codes.data(), h_scales.data(),
                                   values_or_null(h_values), s);
        }
        mark_stage(events, 4, s);

        MatrixStage2Args s2;
        s2.shape = shape_view();
        s2.sorted = sorted_view();
        s2.tile_m = candidate.stage2.tile_m;
        s2.tile_n = candidate.stage2.tile_n;
        s2.atomic = atomic;
        s2.persistent = candidate.stage2.persistent;
        s2.tile_counter = tile_counter.data();
        s2.h_codes = h_codes.data();
        s2.h_scales = h_scales.data();
        s2.h_values = h_values.data();
        s2.w2 = w.w2_fp4;
        s2.w2_scale = w.w2_scale;
        s2.shared_w2 = w.shared_w2_fp8;
        s2.shared_w2_scale = w.shared_w2_scale;
        s2.out_bf16 = out.data();
        s2.slot_out = slot_out.data();
        s2.warpgroup_activation_bytes = stage2_warpgroup_bytes(candidate, dims);
        s2.warpgroup_only = launch_one_group && s2.warpgroup_activation_bytes > 0;
        s2.shared_tiles_first = stage2_shared_tiles_first;
        s2.shallow_ring = stage2_shallow_ring;
        launch_matrix_stage2(s2, stage2_tiles, candidate.stage2.tile_k, persistent_workgroups,
                             stage2_starts_early, s);
        mark_stage(events, 5, s);

        if (!atomic) {
            launch_slot_reduction(slot_out.data(), dims.tokens, dims.topk, dims.hidden, out.data(),
                                  s);
        }
        mark_stage(events, 6, s);
    }

    std::size_t workspace_bytes() const {
        return sorted.bytes() + a1.bytes() + a1_scales.bytes() + h_bf16.bytes() + h_codes.bytes() +
               h_scales.bytes() + a1_values.bytes() + h_values.bytes() + slot_out.bytes() +
               out.bytes() + tile_counter.bytes() + partials.bytes() + split_counters.bytes();
    }

    family::Candidate candidate;
    ProblemDims dims;
    bool atomic;
    bool fused_routing;
    std::int64_t routed_rows_per_expert;  // on average, before padding
    bool staged_activations;              // stage1 (matrix_stage1_stages_activations)
    bool one_token_group;                 // expected (matrix_tiles_are_one_token_group)
    std::int64_t rows;                    // sorted rows the routing can fill at most
    std::int64_t stage1_tiles;
    std::int64_t stage2_tiles;
    int stage1_workgroups_per_multiprocessor;  // stage1_occupancy
    int k_splits;
    int persistent_workgroups = 0;
    SortedRouting sorted;
    DeviceBuffer<std::uint8_t> a1;          // [M + 1][H] mma layout
    DeviceBuffer<std::uint16_t> a1_scales;  // [M + 1][H/32] BF16 factors (matrix_layout.hpp)
    DeviceBuffer<std::uint16_t> h_bf16;     // unfused: [rows][I]
    DeviceBuffer<std::uint8_t> h_codes;     // [rows][I] mma layout
    DeviceBuffer<std::uint16_t> h_scales;   // [rows][I/32] BF16 factors
    DeviceBuffer<std::uint16_t> a1_values;  // large stage1 tiles: x as BF16 values, [M + 1][H]
    DeviceBuffer<std::uint16_t> h_values;   // large stage2 tiles: h as BF16 values, [rows][I]
    DeviceBuffer<std::uint16_t> slot_out;
    DeviceBuffer<std::uint16_t> out;
    DeviceBuffer<std::uint32_t> tile_counter;
    DeviceBuffer<float> partials;                // stage1's K split (empty without one)
    DeviceBuffer<std::uint32_t> split_counters;  // per stage1 tile
    int warpgroup_activation_bytes;              // stage1 (warpgroup_bytes)
    std::int64_t stage1_shared_tiles_first;      // stage1_shared_first
    std::int64_t stage2_shared_tiles_first;      // stage2_shared_first
    bool stage2_starts_early;                    // matrix_stage2_starts_early
    bool stage2_shallow_ring;                    // matrix_stage2_takes_shallow_ring
};

}  // namespace fhmoe::kernels::gpu
