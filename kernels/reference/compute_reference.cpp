// The oracle, written for obviousness rather than speed: dequantize everything to fp32, then
// plain dot products accumulated in ascending K order. The stage-to-stage MXFP8
// quantization of h is part of the op (serving quantizes it in both the fused "_fp8" and
// the unfused variant), so the reference applies it too, quantizing h straight from fp32
// as the fused variant does.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/bf16.hpp"
#include "common/fnv1a.hpp"
#include "common/fp4_e2m1.hpp"
#include "common/fp8_e4m3.hpp"
#include "common/host_parallel.hpp"
#include "common/mx_block.hpp"
#include "common/portable_silu.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "problem/gate_up_layout.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {
namespace {

// One expert's weights, dequantized: w1 [2I, H] in the problem's row order, w2 [H, I].
struct DequantizedExpert {
    std::vector<float> w1;
    std::vector<float> w2;
};

void dequantize_fp4_matrix(const std::uint8_t* packed, const std::uint8_t* scales,
                           std::int64_t rows, std::int64_t k, float* out) {
    for (std::int64_t row = 0; row < rows; ++row) {
        for (std::int64_t block = 0; block < k / kMxBlockSize; ++block) {
            dequantize_mx_block_fp4(packed + (row * k + block * kMxBlockSize) / 2,
                                    scales[row * (k / kMxBlockSize) + block],
                                    out + row * k + block * kMxBlockSize);
        }
    }
}

void dequantize_fp8_matrix(const std::uint8_t* codes, const std::uint8_t* scales, std::int64_t rows,
                           std::int64_t k, float* out) {
    for (std::int64_t row = 0; row < rows; ++row) {
        for (std::int64_t block = 0; block < k / kMxBlockSize; ++block) {
            dequantize_mx_block_fp8(codes + row * k + block * kMxBlockSize,
                                    scales[row * (k / kMxBlockSize) + block],
                                    out + row * k + block * kMxBlockSize);
        }
    }
}

void dequantize_expert(const Problem& problem, const ProblemDims& dims, std::int64_t expert,
                       DequantizedExpert& weights) {
    const std::int64_t rows1 = dims.gate_up_rows();
    if (expert == dims.shared_expert) {
        dequantize_fp8_matrix(problem.shared_w1_fp8.data(), problem.shared_w1_scale.data(), rows1,
                              dims.hidden, weights.w1.data());
        dequantize_fp8_matrix(problem.shared_w2_fp8.data(), problem.shared_w2_scale.data(),
                              dims.hidden, dims.inter, weights.w2.data());
        return;
    }
    dequantize_fp4_matrix(problem.w1_fp4.data() + expert * rows1 * dims.hidden / 2,
                          problem.w1_scale.data() + expert * rows1 * dims.hidden_blocks(), rows1,
                          dims.hidden, weights.w1.data());
    dequantize_fp4_matrix(problem.w2_fp4.data() + expert * dims.hidden * dims.inter / 2,
                          problem.w2_scale.data() + expert * dims.hidden * dims.inter_blocks(),
                          dims.hidden, dims.inter, weights.w2.data());
}

// Quantizes a row to MXFP8 (1x32 blocks) and returns the dequantized values in place.
void round_trip_mxfp8(float* row, std::int64_t length) {
    std::uint8_t codes[kMxBlockSize];
    for (std::int64_t block = 0; block < length; block += kMxBlockSize) {
        const std::uint8_t scale = quantize_mx_block_fp8(row + block, codes);
        dequantize_mx_block_fp8(codes, scale, row + block);
    }
}

float dot(const float* a, const float* b, std::int64_t length) {
    float sum = 0.0f;
    for (std::int64_t k = 0; k < length; ++k) sum += a[k] * b[k];
    return sum;
}

}  // namespace

ReferenceContributions compute_reference_contributions(const Problem& problem) {
    validate_problem(problem);
    const ProblemDims dims(problem.shape);
    const family::GateMode gate_mode = problem.shape.gate_mode;
    const auto plane = static_cast<std::size_t>(dims.tokens * dims.hidden);

    // Activations as stage1 sees them: bf16 -> MXFP8 along H -> fp32.
    std::vector<float> activations(plane);
    for (std::size_t i = 0; i < plane; ++i) activations[i] = decode_bf16(problem.x_bf16[i]);
    for (std::int64_t t = 0; t < dims.tokens; ++t) {
        round_trip_mxfp8(activations.data() + t * dims.hidden, dims.hidden);
    }

    // Slots grouped by expert, tokens ascending, so each expert is dequantized once.
    std::vector<std::vector<std::int64_t>> slots_of_expert(static_cast<std::size_t>(dims.experts));
    for (std::int64_t slot = 0; slot < dims.slot_rows(); ++slot) {
        slots_of_expert[static_cast<std::size_t>(problem.topk_ids[slot])].push_back(slot);
    }

    ReferenceContributions parts{std::vector<float>(plane, 0.0f), std::vector<float>(plane, 0.0f)};
    DequantizedExpert weights{
        std::vector<float>(static_cast<std::size_t>(dims.gate_up_rows() * dims.hidden)),
        std::vector<float>(static_cast<std::size_t>(dims.hidden * dims.inter))};
    for (std::int64_t expert = 0; expert < dims.experts; ++expert) {
        const auto& slots = slots_of_expert[static_cast<std::size_t>(expert)];
        if (slots.empty()) continue;
        dequantize_expert(problem, dims, expert, weights);
        std::vector<float>& target = expert == dims.shared_expert ? parts.shared : parts.routed;
        // An expert's slots belong to distinct tokens (a token routes to an expert once), so
        // each slot writes its own output row and the slots can run side by side; each slot's
        // sums keep their sequential order. A hand-built routing that repeats an expert in a
        // token runs in order instead.
        bool distinct_tokens = true;
        for (std::size_t i = 1; i < slots.size(); ++i) {
            distinct_tokens = distinct_tokens && slots[i] / dims.topk != slots[i - 1] / dims.topk;
        }
        const auto run_slot = [&](std::int64_t index) {
            const std::int64_t slot = slots[static_cast<std::size_t>(index)];
            std::vector<float> h(static_cast<std::size_t>(dims.inter));
            const std::int64_t token = slot / dims.topk;
            const float* a = activations.data() + token * dims.hidden;
            for (std::int64_t i = 0; i < dims.inter; ++i) {
                const float gate =
                    dot(a, weights.w1.data() + gate_row(gate_mode, dims.inter, i) * dims.hidden,
                        dims.hidden);
                const float up =
                    dot(a, weights.w1.data() + up_row(gate_mode, dims.inter, i) * dims.hidden,
                        dims.hidden);
                h[static_cast<std::size_t>(i)] = portable_silu(gate) * up;
            }
            round_trip_mxfp8(h.data(), dims.inter);
            const float routing_weight = problem.topk_weights[static_cast<std::size_t>(slot)];
            float* out = target.data() + token * dims.hidden;
            for (std::int64_t n = 0; n < dims.hidden; ++n) {
                out[n] +=
                    routing_weight * dot(h.data(), weights.w2.data() + n * dims.inter, dims.inter);
            }
        };
        const auto count = static_cast<std::int64_t>(slots.size());
        if (distinct_tokens) {
            parallel_for(count, run_slot);
        } else {
            for (std::int64_t index = 0; index < count; ++index) run_slot(index);
        }
    }
    return parts;
}

std::uint64_t reference_digest(const std::vector<float>& out) {
    Fnv1a64 hash;
    hash.add_u64(out.size());
    for (float value : out) hash.add_u32(float_to_bits(value));
    return hash.value();
}

ReferenceOutput compute_reference(const Problem& problem) {
    ReferenceContributions parts = compute_reference_contributions(problem);
    ReferenceOutput result;
    result.out = std::move(parts.routed);
    for (std::size_t i = 0; i < result.out.size(); ++i) result.out[i] += parts.shared[i];
    result.digest = reference_digest(result.out);
    return result;
}

}  // namespace fhmoe::kernels
