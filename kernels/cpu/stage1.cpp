#include "cpu/stage1.hpp"

#include <algorithm>

#include "common/bf16.hpp"
#include "common/portable_silu.hpp"
#include "cpu/mxfp8_quant_pass.hpp"
#include "cpu/quantized_matrix.hpp"
#include "problem/gate_up_layout.hpp"

namespace fhmoe::kernels {

Stage1Kernel::Stage1Kernel(const ProblemDims& dims, int block_m, const family::Stage1Config& config,
                           int groups)
    : dims_(dims),
      block_m_(block_m),
      config_(config),
      chunk_columns_(config.tile_n / config.waves),
      slice_blocks_(config.tile_k / kMxBlockSize / config.k_waves),
      k_splits_(config.k_splits > 0 ? config.k_splits : 1),
      groups_(static_cast<std::size_t>(groups)),
      lanes_(static_cast<std::size_t>(groups * config.waves)) {
    const auto tile_m = static_cast<std::size_t>(config.tile_m);
    const auto slice_k = static_cast<std::size_t>(slice_blocks_ * kMxBlockSize);
    const auto chunk_width = static_cast<std::size_t>(2 * chunk_columns_);
    for (Group& group : groups_) {
        group.partial.resize(static_cast<std::size_t>(k_splits_ * config.k_waves * config.waves) *
                             tile_m * chunk_width);
        group.barrier = std::make_unique<std::barrier<>>(config.waves);
    }
    for (Lane& lane : lanes_) {
        lane.a_stage.resize(tile_m * slice_k);
        lane.w_stage.resize(slice_k * chunk_width);
        lane.h_row.resize(static_cast<std::size_t>(config.tile_n));
    }
}

std::size_t Stage1Kernel::workspace_bytes() const {
    std::size_t floats = 0;
    for (const Group& group : groups_) floats += group.partial.size();
    for (const Lane& lane : lanes_) {
        floats += lane.a_stage.size() + lane.w_stage.size() + lane.h_row.size();
    }
    return floats * sizeof(float);
}

std::size_t Stage1Kernel::unit_offset(int chunk, int slice, int split) const {
    const std::size_t unit =
        static_cast<std::size_t>((split * config_.k_waves + slice) * config_.waves + chunk);
    return unit * static_cast<std::size_t>(config_.tile_m * 2 * chunk_columns_);
}

void Stage1Kernel::compute_unit(const Stage1Io& io, std::int64_t tile, int chunk, int slice,
                                int split, Lane& lane, float* partial) const {
    const Problem& problem = *io.problem;
    const SortedRouting& routing = *io.routing;
    const std::int64_t n_tiles = dims_.inter / config_.tile_n;
    const std::int64_t row0 = tile / n_tiles * config_.tile_m;
    const std::int64_t column0 = tile % n_tiles * config_.tile_n + chunk * chunk_columns_;
    const std::int64_t expert = routing.block_experts[static_cast<std::size_t>(row0 / block_m_)];
    const std::int64_t rows1 = dims_.gate_up_rows();

    QuantizedMatrix weights;
    weights.k = dims_.hidden;
    if (expert == dims_.shared_expert) {
        weights.codes = problem.shared_w1_fp8.data();
        weights.scales = problem.shared_w1_scale.data();
        weights.fp4 = false;
    } else {
        weights.codes = problem.w1_fp4.data() + expert * rows1 * dims_.hidden / 2;
        weights.scales = problem.w1_scale.data() + expert * rows1 * dims_.hidden_blocks();
    }
    QuantizedMatrix activations;
    activations.codes = io.a1_codes;
    activations.scales = io.a1_scales;
    activations.k = dims_.hidden;
    activations.fp4 = false;

    const int tile_m = config_.tile_m;
    const int width = 2 * chunk_columns_;
    const int slice_k = slice_blocks_ * kMxBlockSize;
    std::fill(partial, partial + tile_m * width, 0.0f);
    const std::int64_t step_blocks = config_.tile_k / kMxBlockSize;

    const std::int64_t steps = dims_.hidden / config_.tile_k;
    const std::int64_t first_step = split * steps / k_splits_;
    const std::int64_t end_step = (split + 1) * steps / k_splits_;
    for (std::int64_t step = first_step; step < end_step; ++step) {
        const std::int64_t block0 = step * step_blocks + slice * slice_blocks_;
        for (int r = 0; r < tile_m; ++r) {
            float* a_row = lane.a_stage.data() + r * slice_k;
            const std::int64_t token =
                sorted_token(routing.sorted_ids[static_cast<std::size_t>(row0 + r)]);
            if (token >= dims_.tokens) {
                std::fill(a_row, a_row + slice_k, 0.0f);  // padding row: computed, never stored
                continue;
            }
            for (int b = 0; b < slice_blocks_; ++b) {
                activations.dequantize_block(token, block0 + b, a_row + b * kMxBlockSize);
            }
        }
        for (int c = 0; c < chunk_columns_; ++c) {
            const std::int64_t rows[2] = {gate_row(config_.gate_mode, dims_.inter, column0 + c),
                                          up_row(config_.gate_mode, dims_.inter, column0 + c)};
            for (int half = 0; half < 2; ++half) {
                for (int b = 0; b < slice_blocks_; ++b) {
                    weights.dequantize_block(rows[half], block0 + b, lane.block);
                    float* target =
                        lane.w_stage.data() + b * kMxBlockSize * width + half * chunk_columns_ + c;
                    for (int i = 0; i < kMxBlockSize; ++i) target[i * width] = lane.block[i];
                }
            }
        }
        for (int r = 0; r < tile_m; ++r) {
            float* accumulator = partial + r * width;
            const float* a_row = lane.a_stage.data() + r * slice_k;
            for (int kk = 0; kk < slice_k; ++kk) {
                const float a = a_row[kk];
                const float* w_row = lane.w_stage.data() + kk * width;
                for (int c = 0; c < width; ++c) accumulator[c] += a * w_row[c];
            }
        }
    }
}

void Stage1Kernel::store_rows(const Stage1Io& io, std::int64_t tile, int lane_index, Lane& lane,
                              const float* partial) const {
    const SortedRouting& routing = *io.routing;
    const std::int64_t n_tiles = dims_.inter / config_.tile_n;
    const std::int64_t row0 = tile / n_tiles * config_.tile_m;
    const std::int64_t column0 = tile % n_tiles * config_.tile_n;
    const int width = 2 * chunk_columns_;

    for (int r = lane_index; r < config_.tile_m; r += config_.waves) {
        const std::int32_t entry = routing.sorted_ids[static_cast<std::size_t>(row0 + r)];
        const std::int64_t token = sorted_token(entry);
        if (token >= dims_.tokens) continue;
        for (int column = 0; column < config_.tile_n; ++column) {
            const int chunk = column / chunk_columns_;
            const int offset = r * width + column % chunk_columns_;
            float gate = 0.0f;
            float up = 0.0f;
            for (int split = 0; split < k_splits_; ++split) {
                for (int slice = 0; slice < config_.k_waves; ++slice) {
                    const float* unit = partial + unit_offset(chunk, slice, split);
                    gate += unit[offset];
                    up += unit[offset + chunk_columns_];
                }
            }
            lane.h_row[static_cast<std::size_t>(column)] = portable_silu(gate) * up;
        }
        const std::int64_t a2_row = token * dims_.topk + sorted_slot(entry);
        if (config_.fused_fp8_out) {
            quantize_fp32_row_mxfp8(
                lane.h_row.data(), config_.tile_n, io.a2_codes + a2_row * dims_.inter + column0,
                io.a2_scales + a2_row * dims_.inter_blocks() + column0 / kMxBlockSize);
        } else {
            std::uint16_t* target = io.a2_bf16 + a2_row * dims_.inter + column0;
            for (int column = 0; column < config_.tile_n; ++column) {
                target[column] = encode_bf16(lane.h_row[static_cast<std::size_t>(column)]);
            }
        }
    }
}

void Stage1Kernel::run(const Stage1Io& io, int participant) {
    const int waves = config_.waves;
    Group& group = groups_[static_cast<std::size_t>(participant / waves)];
    const int lane_index = participant % waves;
    Lane& lane = lanes_[static_cast<std::size_t>(participant)];
    const auto group_count = static_cast<std::int64_t>(groups_.size());
    const std::int64_t tiles =
        io.routing->valid_rows / config_.tile_m * (dims_.inter / config_.tile_n);
    const int parts = config_.k_waves * k_splits_;  // (split, slice) pairs of a chunk
    const int units = waves * parts;

    for (std::int64_t tile = participant / waves; tile < tiles; tile += group_count) {
        for (int unit = lane_index; unit < units; unit += waves) {
            const int chunk = unit / parts;
            const int split = unit % parts / config_.k_waves;
            const int slice = unit % config_.k_waves;
            compute_unit(io, tile, chunk, slice, split, lane,
                         group.partial.data() + unit_offset(chunk, slice, split));
        }
        if (waves > 1) group.barrier->arrive_and_wait();
        store_rows(io, tile, lane_index, lane, group.partial.data());
        // The next tile overwrites the partial sums this one's rows are read from.
        if (waves > 1) group.barrier->arrive_and_wait();
    }
}

}  // namespace fhmoe::kernels
