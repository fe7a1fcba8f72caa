// The oracle: dequantize everything to fp32, then plain dot products, each accumulated in
// ascending K order from zero. The stage-to-stage MXFP8 quantization of h is part of the op
// (serving quantizes it in both the fused "_fp8" and the unfused variant), so the reference
// applies it too, quantizing h straight from fp32 as the fused variant does.
//
// Fast enough for a shape load (DSV4 at 2048 tokens: 118 G multiply-adds) without changing a
// bit of the result: each output's sum keeps its own sequential order (ascending K from 0.0f,
// a multiply then an add per term, -ffp-contract=off), and the speed comes from computing
// many sums side by side. A work item is kColumns weight rows: it dequantizes them into its
// worker's own k-major block (L2-sized for DSV4's W1, L1 for W2; a K step reads kColumns
// adjacent floats) and runs every slot of the expert over it in passes of up to 8 tokens, so
// no expert's dequantized weights go through main memory and every core takes its own
// outputs. Within a pass the pass's tokens x kColumns sums stay in SIMD registers for the
// whole K loop, one add chain per token and vector: the pass size is a compile-time constant
// (one instantiation per size) because with a run-time count the compiler kept the sums on
// the stack, and each K step's add waited on a store and a reload of its own sum; that was
// most of the reference's time (docs/performance.md, "Shape loads: the reference's inner
// loop"). Passes are split evenly (a pass of one token is one add chain, latency-bound), and on
// AVX-512 the FP4 weights are dequantized a K step of all kColumns rows per vector instead of
// one scattered float at a time.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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
constexpr int kMostSlotsPerPass = 8;   // tokens sharing each weight load, at most

// body(w, i) for every i in [0, n), each worker claiming the next unclaimed item
// (host_parallel.hpp says why), on threads started once per reference: a DSV4 load runs
// three rounds per expert for up to 385 experts, and starting threads per round cost more
// than a small round's work. Every item writes its own outputs, so the result never depends
// on the split; w only picks the worker's scratch space.
template <typename Body>
void for_each_item(ThreadPool& pool, std::int64_t n, const Body& body) {
    const auto workers = static_cast<int>(std::min<std::int64_t>(n, pool.size()));
    if (workers <= 1) {
        for (std::int64_t i = 0; i < n; ++i) body(0, i);
        return;
    }
    std::atomic<std::int64_t> next{0};
    auto task = [&](int w) {
        for (std::int64_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
             i = next.fetch_add(1, std::memory_order_relaxed)) {
            body(w, i);
        }
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

// The dequantizers below write rows [row0, row0 + kColumns) of a matrix k-major:
// out[kk * kColumns + r] is row row0 + r's element kk. Every value is the product
// dequantize_mx_block_fp4/_fp8 forms (the element's decoded value times its block's decoded
// scale); the tables only skip the decoding arithmetic. One block of all kColumns rows at a
// time keeps the writes in a 2 KiB span.
using DequantizeColumnBlock = void (*)(const ExpertMatrix& m, std::int64_t row0, float* out);

// Calls row_block(row, block, scale, column) for every 1x32 block of rows [row0, row0 +
// kColumns), block by block: `column` is where the block's element 0 of that row goes (its
// element i at column[i * kColumns]).
template <typename RowBlock>
void for_each_row_block(const ExpertMatrix& m, std::int64_t row0, float* out,
                        const RowBlock& row_block) {
    const std::int64_t blocks = m.k / kMxBlockSize;
    for (std::int64_t block = 0; block < blocks; ++block) {
        float* block_out = out + block * kMxBlockSize * kColumns;
        for (std::int64_t r = 0; r < kColumns; ++r) {
            const std::int64_t row = row0 + r;
            row_block(row, block, decode_e8m0(m.scales[row * blocks + block]), block_out + r);
        }
    }
}

void dequantize_fp8_column_block(const ExpertMatrix& m, std::int64_t row0, float* out) {
    const float* fp8 = fp8_values().value;
    for_each_row_block(m, row0, out,
                       [&](std::int64_t row, std::int64_t block, float scale, float* column) {
                           const std::uint8_t* codes = m.codes + row * m.k + block * kMxBlockSize;
                           for (int i = 0; i < kMxBlockSize; ++i) {
                               column[i * kColumns] = fp8[codes[i]] * scale;
                           }
                       });
}

void dequantize_fp4_column_block(const ExpertMatrix& m, std::int64_t row0, float* out) {
    const float* fp4 = fp4_values().value;
    for_each_row_block(
        m, row0, out, [&](std::int64_t row, std::int64_t block, float scale, float* column) {
            // The block's 16 possible products, formed once for its 32 elements.
            float scaled[16];
            for (int code = 0; code < 16; ++code) scaled[code] = fp4[code] * scale;
            const std::uint8_t* packed = m.codes + (row * m.k + block * kMxBlockSize) / 2;
            for (int i = 0; i < kMxBlockSize / 2; ++i) {
                const std::uint8_t byte = packed[i];
                column[(2 * i) * kColumns] = scaled[byte & 0x0F];
                column[(2 * i + 1) * kColumns] = scaled[byte >> 4];
            }
        });
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

using ColumnSumsOut = float[kMostSlotsPerPass][kColumns];

// sums[s][j] = sum over k ascending of inputs[s][k] * wt[k][j], for Slots input rows and
// j < kColumns: each sum in the order a plain dot product takes, whatever the vector width.
// Slots is a constant so that the Slots x kColumns sums stay in registers for the whole K
// loop (a run-time count left them on the stack, a store-to-load round trip per K step) and
// are Slots independent add chains, enough to hide the add latency.
template <typename Vector, int Slots>
[[gnu::always_inline]] inline void column_sums_of(const float* const* inputs, const float* wt,
                                                  std::int64_t k, ColumnSumsOut& sums) {
    constexpr int kLanes = sizeof(Vector) / sizeof(float);
    constexpr int kVectors = kColumns / kLanes;
    const float* input[Slots];
    for (int s = 0; s < Slots; ++s) input[s] = inputs[s];
    Vector acc[Slots][kVectors] = {};
    for (std::int64_t kk = 0; kk < k; ++kk) {
        Vector w[kVectors];
#pragma GCC unroll 16
        for (int v = 0; v < kVectors; ++v) {
            __builtin_memcpy(&w[v], wt + kk * kColumns + v * kLanes, sizeof w[v]);
        }
#pragma GCC unroll 16
        for (int s = 0; s < Slots; ++s) {
            Vector a;
            for (int lane = 0; lane < kLanes; ++lane) a[lane] = input[s][kk];
#pragma GCC unroll 16
            for (int v = 0; v < kVectors; ++v) acc[s][v] = acc[s][v] + a * w[v];
        }
    }
    for (int s = 0; s < Slots; ++s) __builtin_memcpy(&sums[s], &acc[s], sizeof sums[s]);
}

// column_sums_of for a run-time count of 1..Most slots.
template <typename Vector, int... Counts>
[[gnu::always_inline]] inline void column_sums_for_count(std::integer_sequence<int, Counts...>,
                                                         int slots, const float* const* inputs,
                                                         const float* wt, std::int64_t k,
                                                         ColumnSumsOut& sums) {
    (void)((slots == Counts + 1 ? (column_sums_of<Vector, Counts + 1>(inputs, wt, k, sums), true)
                                : false) ||
           ...);
}

template <typename Vector, int Most>
[[gnu::always_inline]] inline void column_sums_with(const float* const* inputs, int slots,
                                                    const float* wt, std::int64_t k,
                                                    ColumnSumsOut& sums) {
    column_sums_for_count<Vector>(std::make_integer_sequence<int, Most>{}, slots, inputs, wt, k,
                                  sums);
}

using ColumnSums = void (*)(const float* const*, int, const float*, std::int64_t, ColumnSumsOut&);

// The inner loop at one vector width: its sums, how many slots it takes per pass (as many as
// keep the accumulators and one K step's weights in the width's registers: 32 for
// AVX-512, 16 below), and the FP4 dequantizer it pairs with.
struct ColumnKernel {
    ColumnSums sums;
    int slots_per_pass;
    DequantizeColumnBlock dequantize_fp4;
};

void column_sums_4(const float* const* inputs, int slots, const float* wt, std::int64_t k,
                   ColumnSumsOut& sums) {
    column_sums_with<Float4, 2>(inputs, slots, wt, k, sums);
}
constexpr ColumnKernel kColumnKernel4{column_sums_4, 2, dequantize_fp4_column_block};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FHMOE_REFERENCE_WIDE_VECTORS 1
// The wider widths are compiled for their instruction sets only here and chosen at run time
// (the build targets baseline x86-64).
[[gnu::target("avx")]] void column_sums_8(const float* const* inputs, int slots, const float* wt,
                                          std::int64_t k, ColumnSumsOut& sums) {
    column_sums_with<Float8, 4>(inputs, slots, wt, k, sums);
}
constexpr ColumnKernel kColumnKernel8{column_sums_8, 4, dequantize_fp4_column_block};

[[gnu::target("avx512f")]] void column_sums_16(const float* const* inputs, int slots,
                                               const float* wt, std::int64_t k,
                                               ColumnSumsOut& sums) {
    column_sums_with<Float16, kMostSlotsPerPass>(inputs, slots, wt, k, sums);
}

// GCC 12's AVX-512 intrinsics fill their unused merge operand with a self-initialized
// "undefined" vector, which -Wmaybe-uninitialized reports at every use (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// dequantize_fp4_column_block's values in AVX-512 registers, one K step of all kColumns rows
// per vector: the block's codes are transposed to a 32-bit word of each row per lane (the
// rows' codes for 8 K steps), each nibble picks its FP4 value by a permute and is multiplied
// by its row's scale, the same product the table holds. The scalar version's 32 scattered
// 4-byte writes per row and block cost about as much as the sums at DSV4's 15-40 slots per
// expert.
[[gnu::target("avx512f")]] void dequantize_fp4_column_block_16(const ExpertMatrix& m,
                                                               std::int64_t row0, float* out) {
    static_assert(kColumns == 16 && kMxBlockSize == 32, "one row per lane, 16 code bytes a block");
    const std::int64_t blocks = m.k / kMxBlockSize;
    const std::int64_t row_bytes = m.k / 2;
    const __m512 fp4 = _mm512_loadu_ps(fp4_values().value);
    const std::uint8_t* first_row = m.codes + row0 * row_bytes;
    const auto codes_of_row = [&](std::int64_t r, std::int64_t block) {
        return _mm_loadu_si128(
            reinterpret_cast<const __m128i*>(first_row + r * row_bytes + block * 16));
    };
    for (std::int64_t block = 0; block < blocks; ++block) {
        // The 16 rows are 16 interleaved streams the hardware prefetchers pick up late (each
        // expert's codes come from main memory once): fetch each row's codes 4 cache lines
        // ahead, a line per 4 blocks (a quarter less time here on the 2-core VM).
        if (block % 4 == 0) {
            for (std::int64_t r = 0; r < kColumns; ++r) {
                __builtin_prefetch(first_row + r * row_bytes + (block + 16) * 16);
            }
        }
        float row_scale[kColumns];
        for (std::int64_t r = 0; r < kColumns; ++r) {
            row_scale[r] = decode_e8m0(m.scales[(row0 + r) * blocks + block]);
        }
        const __m512 scale = _mm512_loadu_ps(row_scale);
        // quarter[q]'s 128-bit lane l: row 4l + q's 16 code bytes, so that the 4x4 transposes
        // of 32-bit words below leave row r's word d in lane r of word_of[d].
        __m512i quarter[4];
        for (int q = 0; q < 4; ++q) {
            __m512i rows = _mm512_castsi128_si512(codes_of_row(q, block));
            rows = _mm512_inserti32x4(rows, codes_of_row(4 + q, block), 1);
            rows = _mm512_inserti32x4(rows, codes_of_row(8 + q, block), 2);
            quarter[q] = _mm512_inserti32x4(rows, codes_of_row(12 + q, block), 3);
        }
        const __m512i low01 = _mm512_unpacklo_epi32(quarter[0], quarter[1]);
        const __m512i high01 = _mm512_unpackhi_epi32(quarter[0], quarter[1]);
        const __m512i low23 = _mm512_unpacklo_epi32(quarter[2], quarter[3]);
        const __m512i high23 = _mm512_unpackhi_epi32(quarter[2], quarter[3]);
        const __m512i word_of[4] = {
            _mm512_unpacklo_epi64(low01, low23), _mm512_unpackhi_epi64(low01, low23),
            _mm512_unpacklo_epi64(high01, high23), _mm512_unpackhi_epi64(high01, high23)};
        float* block_out = out + block * kMxBlockSize * kColumns;
        // Word d holds code bytes 4d..4d+3, little-endian; byte i's low nibble is element 2i,
        // its high nibble element 2i + 1. The permute reads only an index's low 4 bits.
        for (int d = 0; d < 4; ++d) {
            for (int nibble = 0; nibble < 8; ++nibble) {
                const __m512i codes =
                    _mm512_srli_epi32(word_of[d], static_cast<unsigned>(4 * nibble));
                const __m512 values = _mm512_mul_ps(_mm512_permutexvar_ps(codes, fp4), scale);
                _mm512_storeu_ps(block_out + (8 * d + nibble) * kColumns, values);
            }
        }
    }
}
#pragma GCC diagnostic pop
constexpr ColumnKernel kColumnKernel16{column_sums_16, kMostSlotsPerPass,
                                       dequantize_fp4_column_block_16};
#endif

int widest_vector_floats() {
#if defined(FHMOE_REFERENCE_WIDE_VECTORS)
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx")) return 8;
#endif
    return 4;
}

std::atomic<int> vector_floats_limit{0};

const ColumnKernel& column_kernel_for(int floats) {
#if defined(FHMOE_REFERENCE_WIDE_VECTORS)
    if (floats >= 16) return kColumnKernel16;
    if (floats >= 8) return kColumnKernel8;
#endif
    (void)floats;
    return kColumnKernel4;
}

void dequantize_column_block(const ColumnKernel& kernel, const ExpertMatrix& m, std::int64_t row0,
                             float* out) {
    if (m.fp8) {
        dequantize_fp8_column_block(m, row0, out);
    } else {
        kernel.dequantize_fp4(m, row0, out);
    }
}

// Splits `count` slots into passes of at most `most`, as even as they come (37 at 8: five
// passes of 7 or 8, not 8, 8, 8, 8, 5): a pass of few slots has few add chains and runs at
// the add latency, so evening them out saves more than the pass count costs. body(first, n)
// per pass.
template <typename Body>
void for_each_pass(std::int64_t count, int most, const Body& body) {
    const std::int64_t passes = (count + most - 1) / most;
    std::int64_t first = 0;
    for (std::int64_t pass = 0; pass < passes; ++pass) {
        const std::int64_t end = count * (pass + 1) / passes;
        body(first, static_cast<int>(end - first));
        first = end;
    }
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
    const ColumnKernel& kernel = column_kernel_for(reference_vector_floats());

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
            dequantize_column_block(kernel, w.w1, column0, wt);
            for_each_pass(count, kernel.slots_per_pass, [&](std::int64_t first, int n) {
                const float* inputs[kMostSlotsPerPass] = {};
                for (int i = 0; i < n; ++i) {
                    inputs[i] = activations.data() + slot_at(first + i) / dims.topk * dims.hidden;
                }
                ColumnSumsOut sums;
                kernel.sums(inputs, n, wt, dims.hidden, sums);
                for (int i = 0; i < n; ++i) {
                    std::copy(std::begin(sums[i]), std::end(sums[i]),
                              gate_up.begin() + (first + i) * rows1 + column0);
                }
            });
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
            dequantize_column_block(kernel, w.w2, column0, wt);
            for_each_pass(count, kernel.slots_per_pass, [&](std::int64_t first, int n) {
                const float* inputs[kMostSlotsPerPass] = {};
                for (int i = 0; i < n; ++i) inputs[i] = h.data() + (first + i) * dims.inter;
                ColumnSumsOut sums;
                kernel.sums(inputs, n, wt, dims.inter, sums);
                for (int i = 0; i < n; ++i) {
                    const std::int64_t slot = slot_at(first + i);
                    const float routing_weight =
                        problem.topk_weights[static_cast<std::size_t>(slot)];
                    float* out = target.data() + slot / dims.topk * dims.hidden + column0;
                    for (std::int64_t j = 0; j < kColumns; ++j) {
                        out[j] += routing_weight * sums[i][j];
                    }
                }
            });
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
