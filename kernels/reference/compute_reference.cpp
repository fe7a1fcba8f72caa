// The oracle: dequantize everything to fp32, then plain dot products, each accumulated in
// ascending K order from zero. The stage-to-stage MXFP8 quantization of h is part of the op
// (serving quantizes it in both the fused "_fp8" and the unfused variant), so the reference
// applies it too, quantizing h straight from fp32 as the fused variant does.
//
// Fast enough for a shape load (DSV4 at 2048 tokens: 118 G multiply-adds) without changing a
// bit of the result: each output's sum keeps its own sequential order, and the speed comes
// from computing kColumns outputs side by side in four-float SIMD vectors (the weights are
// dequantized k-major, so a K step reads kColumns adjacent floats), kSlots tokens sharing
// every weight load, and every core taking its own outputs. A work item is kColumns weight
// rows: it dequantizes them into its own k-major block (L2-sized for DSV4's W1, L1 for W2)
// and runs every slot of the expert over it, so no expert's dequantized weights go through
// main memory (docs/performance.md, "Shape loads"; before that each expert's 33 MB were
// written once and read back per group of kSlots tokens).

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "common/bf16.hpp"
#include "common/e8m0.hpp"
#include "common/fnv1a.hpp"
#include "common/fp4_e2m1.hpp"
#include "common/fp8_e4m3.hpp"
#include "common/host_parallel.hpp"
#include "common/mx_block.hpp"
#include "common/portable_silu.hpp"
#include "cpu/thread_pool.hpp"
#include "fhmoe/kernels/reference.hpp"
#include "problem/gate_up_layout.hpp"
#include "problem/problem_dims.hpp"
#include "reference/reference_vectors.hpp"

namespace fhmoe::kernels {
namespace {

constexpr std::int64_t kColumns = 16;  // outputs summed side by side (every dim is a multiple)
constexpr std::int64_t kSlots = 4;     // tokens sharing each weight load

// body(w, i) for every i in [0, n), worker w taking w, w + workers, ... (host_parallel.hpp's
// split), on threads started once per reference: a DSV4 load runs three rounds per expert
// for up to 385 experts, and starting threads per round cost more than a small round's work.
// Every item writes its own outputs, so the result never depends on the split; w only picks
// the worker's scratch space.
template <typename Body>
void for_each_item(ThreadPool& pool, std::int64_t n, const Body& body) {
    const auto workers = static_cast<int>(std::min<std::int64_t>(n, pool.size()));
    if (workers <= 1) {
        for (std::int64_t i = 0; i < n; ++i) body(0, i);
        return;
    }
    auto task = [&](int w) {
        for (std::int64_t i = w; i < n; i += workers) body(w, i);
    };
    pool.run(workers, task);
}

// The 16 FP4 E2M1 values: a code's value is a table entry, the same float decode_fp4_e2m1
// returns.
struct Fp4Values {
    float value[16];
    Fp4Values() {
        for (std::uint8_t code = 0; code < 16; ++code) value[code] = decode_fp4_e2m1(code);
    }
};

// The 256 FP8 E4M3 values, as decode_fp8_e4m3 returns them.
struct Fp8Values {
    float value[256];
    Fp8Values() {
        for (int code = 0; code < 256; ++code) {
            value[code] = decode_fp8_e4m3(static_cast<std::uint8_t>(code));
        }
    }
};

const Fp4Values& fp4_values() {
    static const Fp4Values values;
    return values;
}

const Fp8Values& fp8_values() {
    static const Fp8Values values;
    return values;
}

// One of an expert's two weight matrices, [rows, k] in MX blocks: FP4 for a routed expert,
// FP8 for the shared one.
struct ExpertMatrix {
    const std::uint8_t* codes;  // the expert's first row
    const std::uint8_t* scales;
    bool fp8;
    std::int64_t rows;
    std::int64_t k;
};

// Rows [row0, row0 + kColumns) of `m`, dequantized k-major: out[kk * kColumns + r] is row
// row0 + r's element kk. Every value is the product dequantize_mx_block_fp4/_fp8 forms (the
// element's decoded value times its block's decoded scale); the tables only skip the decoding
// arithmetic. One block of all kColumns rows at a time keeps the writes in a 2 KiB span.
void dequantize_column_block(const ExpertMatrix& m, std::int64_t row0, float* out) {
    const std::int64_t blocks = m.k / kMxBlockSize;
    const float* fp4 = fp4_values().value;
    const float* fp8 = fp8_values().value;
    for (std::int64_t block = 0; block < blocks; ++block) {
        float* block_out = out + block * kMxBlockSize * kColumns;
        for (std::int64_t r = 0; r < kColumns; ++r) {
            const std::int64_t row = row0 + r;
            const float scale = decode_e8m0(m.scales[row * blocks + block]);
            if (m.fp8) {
                const std::uint8_t* codes = m.codes + row * m.k + block * kMxBlockSize;
                for (int i = 0; i < kMxBlockSize; ++i) {
                    block_out[i * kColumns + r] = fp8[codes[i]] * scale;
                }
            } else {
                // The block's 16 possible products, formed once for its 32 elements.
                float scaled[16];
                for (int code = 0; code < 16; ++code) scaled[code] = fp4[code] * scale;
                const std::uint8_t* packed = m.codes + (row * m.k + block * kMxBlockSize) / 2;
                for (int i = 0; i < kMxBlockSize / 2; ++i) {
                    const std::uint8_t byte = packed[i];
                    block_out[(2 * i) * kColumns + r] = scaled[byte & 0x0F];
                    block_out[(2 * i + 1) * kColumns + r] = scaled[byte >> 4];
                }
            }
        }
    }
}

// An expert's W1 [2I, H] and W2 [H, I]: the routed ones' FP4 slices, or the shared expert's
// FP8 tensors.
struct ExpertWeights {
    ExpertMatrix w1;
    ExpertMatrix w2;
};

ExpertWeights expert_weights(const Problem& problem, const ProblemDims& dims, std::int64_t expert) {
    const std::int64_t rows1 = dims.gate_up_rows();
    if (expert == dims.shared_expert) {
        return {{problem.shared_w1_fp8.data(), problem.shared_w1_scale.data(), true, rows1,
                 dims.hidden},
                {problem.shared_w2_fp8.data(), problem.shared_w2_scale.data(), true, dims.hidden,
                 dims.inter}};
    }
    const std::int64_t w1_at = expert * rows1 * dims.hidden;
    const std::int64_t w2_at = expert * dims.hidden * dims.inter;
    return {{problem.w1_fp4.data() + w1_at / 2, problem.w1_scale.data() + w1_at / kMxBlockSize,
             false, rows1, dims.hidden},
            {problem.w2_fp4.data() + w2_at / 2, problem.w2_scale.data() + w2_at / kMxBlockSize,
             false, dims.hidden, dims.inter}};
}

// 4, 8 or 16 floats side by side (GCC/Clang vector extension): element-wise multiplies and
// adds in SIMD registers (SSE2, which every x86-64 has; AVX; AVX-512F), each lane rounding
// exactly as the scalar code would. The library is built with -ffp-contract=off, so no width
// fuses a multiply and an add.
using Float4 = float __attribute__((vector_size(16)));
using Float8 = float __attribute__((vector_size(32)));
using Float16 = float __attribute__((vector_size(64)));

// sums[s][j] = sum over k ascending of inputs[s][k] * wt[k][j], for `slots` input rows (at
// most kSlots) and j < kColumns: each sum in the order a plain dot product takes, whatever
// the vector width.
template <typename Vector>
[[gnu::always_inline]] inline void column_sums_with(const float* const* inputs, std::int64_t slots,
                                                    const float* wt, std::int64_t k,
                                                    float (&sums)[kSlots][kColumns]) {
    constexpr int kLanes = sizeof(Vector) / sizeof(float);
    constexpr int kVectors = kColumns / kLanes;
    Vector acc[kSlots][kVectors] = {};
    for (std::int64_t kk = 0; kk < k; ++kk) {
        Vector w[kVectors];
        __builtin_memcpy(&w, wt + kk * kColumns, sizeof w);
        for (std::int64_t s = 0; s < kSlots; ++s) {
            if (s >= slots) break;
            Vector a;
            for (int lane = 0; lane < kLanes; ++lane) a[lane] = inputs[s][kk];
            for (int v = 0; v < kVectors; ++v) acc[s][v] = acc[s][v] + a * w[v];
        }
    }
    for (std::int64_t s = 0; s < kSlots; ++s) __builtin_memcpy(&sums[s], &acc[s], sizeof sums[s]);
}

using ColumnSums = void (*)(const float* const*, std::int64_t, const float*, std::int64_t,
                            float (&)[kSlots][kColumns]);

void column_sums_4(const float* const* inputs, std::int64_t slots, const float* wt, std::int64_t k,
                   float (&sums)[kSlots][kColumns]) {
    column_sums_with<Float4>(inputs, slots, wt, k, sums);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FHMOE_REFERENCE_WIDE_VECTORS 1
// The wider widths are compiled for their instruction sets only here and chosen at run time
// (the build targets baseline x86-64): on a 2-core AVX-512 VM 5.5 -> 12 G multiply-adds/s
// per core, the whole reference's inner loop.
[[gnu::target("avx")]] void column_sums_8(const float* const* inputs, std::int64_t slots,
                                          const float* wt, std::int64_t k,
                                          float (&sums)[kSlots][kColumns]) {
    column_sums_with<Float8>(inputs, slots, wt, k, sums);
}

[[gnu::target("avx512f")]] void column_sums_16(const float* const* inputs, std::int64_t slots,
                                               const float* wt, std::int64_t k,
                                               float (&sums)[kSlots][kColumns]) {
    column_sums_with<Float16>(inputs, slots, wt, k, sums);
}
#endif

int widest_vector_floats() {
#if defined(FHMOE_REFERENCE_WIDE_VECTORS)
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx")) return 8;
#endif
    return 4;
}

std::atomic<int> vector_floats_limit{0};

ColumnSums column_sums_for(int floats) {
#if defined(FHMOE_REFERENCE_WIDE_VECTORS)
    if (floats >= 16) return column_sums_16;
    if (floats >= 8) return column_sums_8;
#endif
    (void)floats;
    return column_sums_4;
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

int reference_vector_floats() {
    static const int widest = widest_vector_floats();
    const int limit = vector_floats_limit.load(std::memory_order_relaxed);
    return limit > 0 && limit < widest ? (limit >= 8 ? 8 : 4) : widest;
}

ScopedReferenceVectorLimit::ScopedReferenceVectorLimit(int floats)
    : previous_(vector_floats_limit.exchange(floats)) {}

ScopedReferenceVectorLimit::~ScopedReferenceVectorLimit() { vector_floats_limit.store(previous_); }

ReferenceContributions compute_reference_contributions(const Problem& problem) {
    validate_problem(problem);
    const ProblemDims dims(problem.shape);
    const family::GateMode gate_mode = problem.shape.gate_mode;
    const auto plane = static_cast<std::size_t>(dims.tokens * dims.hidden);

    ThreadPool pool(host_threads());
    const ColumnSums column_sums = column_sums_for(reference_vector_floats());

    // Activations as stage1 sees them: bf16 -> MXFP8 along H -> fp32, a token per item.
    std::vector<float> activations(plane);
    for_each_item(pool, dims.tokens, [&](int, std::int64_t t) {
        float* row = activations.data() + t * dims.hidden;
        const std::uint16_t* x = problem.x_bf16.data() + t * dims.hidden;
        for (std::int64_t i = 0; i < dims.hidden; ++i) row[i] = decode_bf16(x[i]);
        round_trip_mxfp8(row, dims.hidden);
    });

    // Slots grouped by expert, tokens ascending, so each expert is dequantized once.
    std::vector<std::vector<std::int64_t>> slots_of_expert(static_cast<std::size_t>(dims.experts));
    for (std::int64_t slot = 0; slot < dims.slot_rows(); ++slot) {
        slots_of_expert[static_cast<std::size_t>(problem.topk_ids[slot])].push_back(slot);
    }

    ReferenceContributions parts{std::vector<float>(plane, 0.0f), std::vector<float>(plane, 0.0f)};
    const std::int64_t rows1 = dims.gate_up_rows();
    // Each worker's k-major block of kColumns dequantized weight rows, allocated once.
    const std::int64_t block_floats = kColumns * std::max(dims.hidden, dims.inter);
    std::vector<float> blocks(static_cast<std::size_t>(block_floats * pool.size()));
    const auto block_of = [&](int worker) { return blocks.data() + worker * block_floats; };
    std::vector<float> gate_up;
    std::vector<float> h;
    for (std::int64_t expert = 0; expert < dims.experts; ++expert) {
        const auto& slots = slots_of_expert[static_cast<std::size_t>(expert)];
        if (slots.empty()) continue;
        const ExpertWeights w = expert_weights(problem, dims, expert);
        std::vector<float>& target = expert == dims.shared_expert ? parts.shared : parts.routed;
        const auto count = static_cast<std::int64_t>(slots.size());
        const auto slot_at = [&](std::int64_t index) {
            return slots[static_cast<std::size_t>(index)];
        };

        // Stage1: every slot's gate and up sums, [slot][2I], an item per kColumns W1 rows.
        gate_up.resize(static_cast<std::size_t>(count * rows1));
        for_each_item(pool, rows1 / kColumns, [&](int worker, std::int64_t item) {
            const std::int64_t column0 = item * kColumns;
            float* wt = block_of(worker);
            dequantize_column_block(w.w1, column0, wt);
            for (std::int64_t first = 0; first < count; first += kSlots) {
                const std::int64_t n = std::min(kSlots, count - first);
                const float* inputs[kSlots] = {};
                for (std::int64_t i = 0; i < n; ++i) {
                    inputs[i] = activations.data() + slot_at(first + i) / dims.topk * dims.hidden;
                }
                float sums[kSlots][kColumns];
                column_sums(inputs, n, wt, dims.hidden, sums);
                for (std::int64_t i = 0; i < n; ++i) {
                    std::copy(std::begin(sums[i]), std::end(sums[i]),
                              gate_up.begin() + (first + i) * rows1 + column0);
                }
            }
        });

        // h = SiLU(gate) * up, through MXFP8 as stage2 reads it, [slot][I].
        h.resize(static_cast<std::size_t>(count * dims.inter));
        for_each_item(pool, count, [&](int, std::int64_t index) {
            const float* sums = gate_up.data() + index * rows1;
            float* row = h.data() + index * dims.inter;
            for (std::int64_t i = 0; i < dims.inter; ++i) {
                row[i] = portable_silu(sums[gate_row(gate_mode, dims.inter, i)]) *
                         sums[up_row(gate_mode, dims.inter, i)];
            }
            round_trip_mxfp8(row, dims.inter);
        });

        // Stage2, weighted into the slot's token row, an item per kColumns output columns: an
        // item adds its columns' contributions in slot order, so even a hand-built routing
        // that repeats an expert in a token sums into the row in slot order.
        for_each_item(pool, dims.hidden / kColumns, [&](int worker, std::int64_t item) {
            const std::int64_t column0 = item * kColumns;
            float* wt = block_of(worker);
            dequantize_column_block(w.w2, column0, wt);
            for (std::int64_t first = 0; first < count; first += kSlots) {
                const std::int64_t n = std::min(kSlots, count - first);
                const float* inputs[kSlots] = {};
                for (std::int64_t i = 0; i < n; ++i) {
                    inputs[i] = h.data() + (first + i) * dims.inter;
                }
                float sums[kSlots][kColumns];
                column_sums(inputs, n, wt, dims.inter, sums);
                for (std::int64_t i = 0; i < n; ++i) {
                    const std::int64_t slot = slot_at(first + i);
                    const float routing_weight =
                        problem.topk_weights[static_cast<std::size_t>(slot)];
                    float* out = target.data() + slot / dims.topk * dims.hidden + column0;
                    for (std::int64_t j = 0; j < kColumns; ++j) {
                        out[j] += routing_weight * sums[i][j];
                    }
                }
            }
        });
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
