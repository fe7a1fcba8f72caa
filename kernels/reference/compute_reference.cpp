// The oracle: dequantize everything to fp32, then plain dot products, each accumulated in
// ascending K order from zero. The stage-to-stage MXFP8 quantization of h is part of the op
// (serving quantizes it in both the fused "_fp8" and the unfused variant), so the reference
// applies it too, quantizing h straight from fp32 as the fused variant does.
//
// Fast enough for a shape load (DSV4 at 2048 tokens: 118 G multiply-adds) without changing a
// bit of the result: each output's sum keeps its own sequential order, and the speed comes
// from computing kColumns outputs side by side in four-float SIMD vectors (the weights are
// dequantized k-major, so a K step reads kColumns adjacent floats), kSlots tokens sharing
// every weight load, and every core taking its own outputs. On the H200 machine's 16 cores
// (docs/performance.md): 30.9 -> 6.2 s at 2048 DSV4 tokens, 15.7 -> 1.9 s at 64, 0.42 ->
// 0.07 s at 1, every digest unchanged.

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "common/bf16.hpp"
#include "common/e8m0.hpp"
#include "common/fnv1a.hpp"
#include "common/fp4_e2m1.hpp"
#include "common/fp8_e4m3.hpp"
#include "common/mx_block.hpp"
#include "common/portable_silu.hpp"
#include "cpu/thread_pool.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "problem/gate_up_layout.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {
namespace {

constexpr std::int64_t kColumns = 16;  // outputs summed side by side (every dim is a multiple)
constexpr std::int64_t kSlots = 4;     // tokens sharing each weight load
constexpr std::int64_t kRowChunk = 16;
constexpr unsigned kMostReferenceThreads =
    64;  // as host_parallel.hpp  // weight rows dequantized per work item

// body(i) for every i in [0, n), worker w taking w, w + workers, ... (host_parallel.hpp's
// split), on threads started once per reference: a DSV4 load runs four rounds per expert for
// up to 385 experts, and starting threads per round cost more than a small round's work.
// Every item writes its own outputs, so the result never depends on the split.
template <typename Body>
void for_each_item(ThreadPool& pool, std::int64_t n, const Body& body) {
    const auto workers = static_cast<int>(std::min<std::int64_t>(n, pool.size()));
    if (workers <= 1) {
        for (std::int64_t i = 0; i < n; ++i) body(i);
        return;
    }
    auto task = [&](int w) {
        for (std::int64_t i = w; i < n; i += workers) body(i);
    };
    pool.run(workers, task);
}

// One expert's weights, dequantized and k-major: w1t [H][2I] (column r = the problem's w1 row
// r), w2t [I][H].
struct DequantizedExpert {
    std::vector<float> w1t;
    std::vector<float> w2t;
};

// dequantize_mx_block_fp4 through a table of the block's 16 possible values: the same
// products (each code's value times the scale), formed once per block instead of per element.
void dequantize_fp4_block(const std::uint8_t* packed, std::uint8_t scale, float* values) {
    const float scale_value = decode_e8m0(scale);
    float table[16];
    for (std::uint8_t code = 0; code < 16; ++code) {
        table[code] = decode_fp4_e2m1(code) * scale_value;
    }
    for (int i = 0; i < kMxBlockSize; ++i) values[i] = table[fp4x2_element(packed, i)];
}

// One of an expert's two weight matrices, [rows, k] in MX blocks: FP4 for a routed expert,
// FP8 for the shared one.
struct ExpertMatrix {
    const std::uint8_t* codes;  // the expert's first row
    const std::uint8_t* scales;
    bool fp8;
    std::int64_t rows;
    std::int64_t k;

    void dequantize_block(std::int64_t row, std::int64_t block, float* values) const {
        const std::int64_t at = row * k + block * kMxBlockSize;
        const std::uint8_t scale = scales[row * (k / kMxBlockSize) + block];
        if (fp8) {
            dequantize_mx_block_fp8(codes + at, scale, values);
        } else {
            dequantize_fp4_block(codes + at / 2, scale, values);
        }
    }
};

// Rows [row0, row0 + kRowChunk) of a [rows, k] MX matrix into columns of the k-major `out`:
// dequantized row by row into a buffer, then written out k by k (kRowChunk adjacent floats
// per k). Faster on a 16-core host than scattering each block straight into its columns.
void dequantize_rows_transposed(const ExpertMatrix& m, std::int64_t row0, float* out) {
    const std::int64_t rows = m.rows;
    const std::int64_t k = m.k;
    std::vector<float> chunk(static_cast<std::size_t>(kRowChunk * k));
    const std::int64_t count = std::min(kRowChunk, rows - row0);
    for (std::int64_t r = 0; r < count; ++r) {
        for (std::int64_t block = 0; block < k / kMxBlockSize; ++block) {
            m.dequantize_block(row0 + r, block, chunk.data() + r * k + block * kMxBlockSize);
        }
    }
    for (std::int64_t kk = 0; kk < k; ++kk) {
        for (std::int64_t r = 0; r < count; ++r) out[kk * rows + row0 + r] = chunk[r * k + kk];
    }
}

void dequantize_expert(ThreadPool& pool, const Problem& problem, const ProblemDims& dims,
                       std::int64_t expert, DequantizedExpert& weights) {
    const std::int64_t rows1 = dims.gate_up_rows();
    const bool shared = expert == dims.shared_expert;
    const std::int64_t w1_at = expert * rows1 * dims.hidden;
    const std::int64_t w2_at = expert * dims.hidden * dims.inter;
    const ExpertMatrix w1 =
        shared ? ExpertMatrix{problem.shared_w1_fp8.data(), problem.shared_w1_scale.data(), true,
                              rows1, dims.hidden}
               : ExpertMatrix{problem.w1_fp4.data() + w1_at / 2,
                              problem.w1_scale.data() + w1_at / kMxBlockSize, false, rows1,
                              dims.hidden};
    const ExpertMatrix w2 =
        shared ? ExpertMatrix{problem.shared_w2_fp8.data(), problem.shared_w2_scale.data(), true,
                              dims.hidden, dims.inter}
               : ExpertMatrix{problem.w2_fp4.data() + w2_at / 2,
                              problem.w2_scale.data() + w2_at / kMxBlockSize, false, dims.hidden,
                              dims.inter};
    const std::int64_t chunks1 = (rows1 + kRowChunk - 1) / kRowChunk;
    const std::int64_t chunks2 = (dims.hidden + kRowChunk - 1) / kRowChunk;
    for_each_item(pool, chunks1 + chunks2, [&](std::int64_t chunk) {
        if (chunk < chunks1) {
            dequantize_rows_transposed(w1, chunk * kRowChunk, weights.w1t.data());
        } else {
            dequantize_rows_transposed(w2, (chunk - chunks1) * kRowChunk, weights.w2t.data());
        }
    });
}

// Four floats side by side (GCC/Clang vector extension): element-wise multiplies and adds in
// the SIMD registers every x86-64 has, each lane rounding exactly as the scalar code would.
using Float4 = float __attribute__((vector_size(16)));

// sums[s][j] = sum over k ascending of inputs[s][k] * wt[k][column0 + j], for `slots` input
// rows (at most kSlots) and j < kColumns: each sum in the order a plain dot product takes.
void column_sums(const float* const* inputs, std::int64_t slots, const float* wt, std::int64_t k,
                 std::int64_t columns, std::int64_t column0, float (&sums)[kSlots][kColumns]) {
    constexpr int kVectors = kColumns / 4;
    Float4 acc[kSlots][kVectors] = {};
    for (std::int64_t kk = 0; kk < k; ++kk) {
        Float4 w[kVectors];
        __builtin_memcpy(&w, wt + kk * columns + column0, sizeof w);
        for (std::int64_t s = 0; s < kSlots; ++s) {
            if (s >= slots) break;
            const float a = inputs[s][kk];
            const Float4 a4 = {a, a, a, a};
            for (int v = 0; v < kVectors; ++v) acc[s][v] = acc[s][v] + a4 * w[v];
        }
    }
    for (std::int64_t s = 0; s < kSlots; ++s) __builtin_memcpy(&sums[s], &acc[s], sizeof sums[s]);
}

// Quantizes a row to MXFP8 (1x32 blocks) and returns the dequantized values in place.
void round_trip_mxfp8(float* row, std::int64_t length) {
    std::uint8_t codes[kMxBlockSize];
    for (std::int64_t block = 0; block < length; block += kMxBlockSize) {
        const std::uint8_t scale = quantize_mx_block_fp8(row + block, codes);
        dequantize_mx_block_fp8(codes, scale, row + block);
    }
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
    ThreadPool pool(static_cast<int>(
        std::clamp<unsigned>(std::thread::hardware_concurrency(), 1u, kMostReferenceThreads)));
    const std::int64_t rows1 = dims.gate_up_rows();
    DequantizedExpert weights{
        std::vector<float>(static_cast<std::size_t>(rows1 * dims.hidden)),
        std::vector<float>(static_cast<std::size_t>(dims.hidden * dims.inter))};
    for (std::int64_t expert = 0; expert < dims.experts; ++expert) {
        const auto& slots = slots_of_expert[static_cast<std::size_t>(expert)];
        if (slots.empty()) continue;
        dequantize_expert(pool, problem, dims, expert, weights);
        std::vector<float>& target = expert == dims.shared_expert ? parts.shared : parts.routed;
        const auto count = static_cast<std::int64_t>(slots.size());
        const std::int64_t slot_chunks = (count + kSlots - 1) / kSlots;
        const auto slot_at = [&](std::int64_t index) {
            return slots[static_cast<std::size_t>(index)];
        };

        // Stage1: every slot's gate and up sums, [slot][2I].
        std::vector<float> gate_up(static_cast<std::size_t>(count * rows1));
        const std::int64_t chunks1 = rows1 / kColumns;
        for_each_item(pool, slot_chunks * chunks1, [&](std::int64_t item) {
            const std::int64_t first = item / chunks1 * kSlots;
            const std::int64_t column0 = item % chunks1 * kColumns;
            const std::int64_t n = std::min(kSlots, count - first);
            const float* inputs[kSlots] = {};
            for (std::int64_t i = 0; i < n; ++i) {
                inputs[i] = activations.data() + slot_at(first + i) / dims.topk * dims.hidden;
            }
            float sums[kSlots][kColumns];
            column_sums(inputs, n, weights.w1t.data(), dims.hidden, rows1, column0, sums);
            for (std::int64_t i = 0; i < n; ++i) {
                std::copy(std::begin(sums[i]), std::end(sums[i]),
                          gate_up.begin() + (first + i) * rows1 + column0);
            }
        });

        // h = SiLU(gate) * up, through MXFP8 as stage2 reads it, [slot][I].
        std::vector<float> h(static_cast<std::size_t>(count * dims.inter));
        for_each_item(pool, count, [&](std::int64_t index) {
            const float* sums = gate_up.data() + index * rows1;
            float* row = h.data() + index * dims.inter;
            for (std::int64_t i = 0; i < dims.inter; ++i) {
                row[i] = portable_silu(sums[gate_row(gate_mode, dims.inter, i)]) *
                         sums[up_row(gate_mode, dims.inter, i)];
            }
            round_trip_mxfp8(row, dims.inter);
        });

        // Stage2, weighted into the slot's token row. An expert's slots belong to distinct
        // tokens (a token routes to an expert once), so the work items write distinct outputs
        // and run side by side; a hand-built routing that repeats an expert in a token runs
        // them in slot order instead, as the sums into one row must.
        bool distinct_tokens = true;
        for (std::int64_t i = 1; i < count; ++i) {
            distinct_tokens =
                distinct_tokens && slot_at(i) / dims.topk != slot_at(i - 1) / dims.topk;
        }
        const std::int64_t chunks2 = dims.hidden / kColumns;
        const auto stage2 = [&](std::int64_t item) {
            const std::int64_t first = item / chunks2 * kSlots;
            const std::int64_t column0 = item % chunks2 * kColumns;
            const std::int64_t n = std::min(kSlots, count - first);
            const float* inputs[kSlots] = {};
            for (std::int64_t i = 0; i < n; ++i) inputs[i] = h.data() + (first + i) * dims.inter;
            float sums[kSlots][kColumns];
            column_sums(inputs, n, weights.w2t.data(), dims.inter, dims.hidden, column0, sums);
            for (std::int64_t i = 0; i < n; ++i) {
                const std::int64_t slot = slot_at(first + i);
                const float routing_weight = problem.topk_weights[static_cast<std::size_t>(slot)];
                float* out = target.data() + slot / dims.topk * dims.hidden + column0;
                for (std::int64_t j = 0; j < kColumns; ++j) out[j] += routing_weight * sums[i][j];
            }
        };
        if (distinct_tokens) {
            for_each_item(pool, slot_chunks * chunks2, stage2);
        } else {
            for (std::int64_t item = 0; item < slot_chunks * chunks2; ++item) stage2(item);
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
