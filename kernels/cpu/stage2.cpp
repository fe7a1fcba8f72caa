#include "cpu/stage2.hpp"

#include <algorithm>
#include <atomic>

#include "common/bf16.hpp"
#include "cpu/quantized_matrix.hpp"

namespace fhmoe::kernels {
namespace {

void atomic_add_bf16(std::uint16_t& cell, float value) {
    std::atomic_ref<std::uint16_t> target(cell);
    std::uint16_t seen = target.load(std::memory_order_relaxed);
    while (!target.compare_exchange_weak(seen, encode_bf16(decode_bf16(seen) + value),
                                         std::memory_order_relaxed)) {
    }
}

}  // namespace

Stage2Kernel::Stage2Kernel(const ProblemDims& dims, int block_m, const family::Stage2Config& config,
                           int workers, std::int64_t scale_block_skew)
    : dims_(dims),
      block_m_(block_m),
      config_(config),
      scale_block_skew_(scale_block_skew),
      lanes_(static_cast<std::size_t>(workers)) {
    const auto tile_m = static_cast<std::size_t>(config.tile_m);
    const auto tile_n = static_cast<std::size_t>(config.tile_n);
    const auto tile_k = static_cast<std::size_t>(config.tile_k);
    for (Lane& lane : lanes_) {
        lane.a_stage.resize(tile_m * tile_k);
        lane.w_stage.resize(tile_k * tile_n);
        lane.accumulator.resize(tile_m * tile_n);
    }
}

std::size_t Stage2Kernel::workspace_bytes() const {
    std::size_t floats = 0;
    for (const Lane& lane : lanes_) {
        floats += lane.a_stage.size() + lane.w_stage.size() + lane.accumulator.size();
    }
    return floats * sizeof(float);
}

void Stage2Kernel::compute_tile(const Stage2Io& io, std::int64_t tile, Lane& lane) const {
    const Problem& problem = *io.problem;
    const SortedRouting& routing = *io.routing;
    const std::int64_t n_tiles = dims_.hidden / config_.tile_n;
    const std::int64_t row0 = tile / n_tiles * config_.tile_m;
    const std::int64_t column0 = tile % n_tiles * config_.tile_n;
    const std::int64_t expert = routing.block_experts[static_cast<std::size_t>(row0 / block_m_)];

    QuantizedMatrix weights;
    weights.k = dims_.inter;
    if (expert == dims_.shared_expert) {
        weights.codes = problem.shared_w2_fp8.data();
        weights.scales = problem.shared_w2_scale.data();
        weights.fp4 = false;
    } else {
        weights.codes = problem.w2_fp4.data() + expert * dims_.hidden * dims_.inter / 2;
        weights.scales = problem.w2_scale.data() + expert * dims_.hidden * dims_.inter_blocks();
        weights.scale_block_skew = scale_block_skew_;
    }
    QuantizedMatrix activations;
    activations.codes = io.a2_codes;
    activations.scales = io.a2_scales;
    activations.k = dims_.inter;
    activations.fp4 = false;

    const int tile_m = config_.tile_m;
    const int tile_n = config_.tile_n;
    const int tile_k = config_.tile_k;
    const int step_blocks = tile_k / kMxBlockSize;
    std::fill(lane.accumulator.begin(), lane.accumulator.end(), 0.0f);

    for (std::int64_t step = 0; step < dims_.inter / tile_k; ++step) {
        const std::int64_t block0 = step * step_blocks;
        for (int r = 0; r < tile_m; ++r) {
            float* a_row = lane.a_stage.data() + r * tile_k;
            const std::int32_t entry = routing.sorted_ids[static_cast<std::size_t>(row0 + r)];
            const std::int64_t token = sorted_token(entry);
            if (token >= dims_.tokens) {
                std::fill(a_row, a_row + tile_k, 0.0f);  // padding row: computed, never stored
                continue;
            }
            const std::int64_t a2_row = token * dims_.topk + sorted_slot(entry);
            for (int b = 0; b < step_blocks; ++b) {
                activations.dequantize_block(a2_row, block0 + b, a_row + b * kMxBlockSize);
            }
        }
        for (int n = 0; n < tile_n; ++n) {
            for (int b = 0; b < step_blocks; ++b) {
                weights.dequantize_block(column0 + n, block0 + b, lane.block);
                float* target = lane.w_stage.data() + b * kMxBlockSize * tile_n + n;
                for (int i = 0; i < kMxBlockSize; ++i) target[i * tile_n] = lane.block[i];
            }
        }
        for (int r = 0; r < tile_m; ++r) {
            float* accumulator = lane.accumulator.data() + r * tile_n;
            const float* a_row = lane.a_stage.data() + r * tile_k;
            for (int kk = 0; kk < tile_k; ++kk) {
                const float a = a_row[kk];
                const float* w_row = lane.w_stage.data() + kk * tile_n;
                for (int n = 0; n < tile_n; ++n) accumulator[n] += a * w_row[n];
            }
        }
    }
}

void Stage2Kernel::store_tile(const Stage2Io& io, std::int64_t tile, const Lane& lane) const {
    const SortedRouting& routing = *io.routing;
    const std::int64_t n_tiles = dims_.hidden / config_.tile_n;
    const std::int64_t row0 = tile / n_tiles * config_.tile_m;
    const std::int64_t column0 = tile % n_tiles * config_.tile_n;
    const int tile_n = config_.tile_n;

    for (int r = 0; r < config_.tile_m; ++r) {
        const auto row = static_cast<std::size_t>(row0 + r);
        const std::int64_t token = sorted_token(routing.sorted_ids[row]);
        if (token >= dims_.tokens) continue;
        const float weight = routing.sorted_weights[row];
        const float* accumulator = lane.accumulator.data() + r * tile_n;
        if (config_.mode == family::Stage2Mode::atomic) {
            std::uint16_t* target = io.out_bf16 + token * dims_.hidden + column0;
            for (int n = 0; n < tile_n; ++n) atomic_add_bf16(target[n], accumulator[n] * weight);
        } else {
            const std::int64_t slot_row = token * dims_.topk + sorted_slot(routing.sorted_ids[row]);
            std::uint16_t* target = io.slot_out + slot_row * dims_.hidden + column0;
            for (int n = 0; n < tile_n; ++n) target[n] = encode_bf16(accumulator[n] * weight);
        }
    }
}

void Stage2Kernel::run(const Stage2Io& io, int participant) {
    Lane& lane = lanes_[static_cast<std::size_t>(participant)];
    const std::int64_t tiles =
        io.routing->valid_rows / config_.tile_m * (dims_.hidden / config_.tile_n);
    if (config_.persistent) {
        for (std::int64_t tile = next_tile_.fetch_add(1, std::memory_order_relaxed); tile < tiles;
             tile = next_tile_.fetch_add(1, std::memory_order_relaxed)) {
            compute_tile(io, tile, lane);
            store_tile(io, tile, lane);
        }
        return;
    }
    const auto workers = static_cast<std::int64_t>(lanes_.size());
    const std::int64_t begin = tiles * participant / workers;
    const std::int64_t end = tiles * (participant + 1) / workers;
    for (std::int64_t tile = begin; tile < end; ++tile) {
        compute_tile(io, tile, lane);
        store_tile(io, tile, lane);
    }
}

void reduce_slot_rows(const std::uint16_t* slot_out, std::int64_t topk, std::int64_t hidden,
                      std::int64_t token_begin, std::int64_t token_end, std::uint16_t* out_bf16) {
    for (std::int64_t token = token_begin; token < token_end; ++token) {
        const std::uint16_t* slots = slot_out + token * topk * hidden;
        std::uint16_t* out = out_bf16 + token * hidden;
        for (std::int64_t n = 0; n < hidden; ++n) {
            float sum = 0.0f;
            for (std::int64_t slot = 0; slot < topk; ++slot)
                sum += decode_bf16(slots[slot * hidden + n]);
            out[n] = encode_bf16(sum);
        }
    }
}

}  // namespace fhmoe::kernels
