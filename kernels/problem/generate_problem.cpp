// Inputs with the statistics of a served FHMoE layer, from integer random bits only.
//
// Magnitudes are chosen so that gate/up pre-activations are O(1) (SiLU's curved region, so
// the nonlinearity and the stage-to-stage quantization matter) and the output is O(1) (so
// atol and rtol of the accuracy check are both meaningful): every weight scale exponent is
// -ceil(log2(K))/2 (~1/sqrt(K)), plus a per-tensor adjustment below, plus a per-block
// offset in [-2, 1]. The offsets make the E8M0 scales vary block to block, which is what
// exposes a scale-indexing bug; all-ones scales (aiter's a8w4 check, spec 10.10) would hide
// it. For H=256, I=128: gate/up RMS ~2, h RMS ~3, each expert's output RMS ~0.8, the op's
// output RMS ~1.5.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "common/bf16.hpp"
#include "common/e8m0.hpp"
#include "common/host_buffer.hpp"
#include "common/host_parallel.hpp"
#include "common/mx_block.hpp"
#include "common/portable_silu.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "problem/counter_random.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {
namespace {

// aiter's test scales the normalised routed weights by DSV4's routed_scaling_factor.
constexpr float kRoutedScaling = 2.5f;
constexpr float kSharedWeight = 1.0f;
// Routing scores are uniform in [-kScoreRange, kScoreRange) before the softmax.
constexpr float kScoreRange = 2.0f;
constexpr std::uint32_t kScaleOffsets = 4;  // per-block offsets -2, -1, 0, +1
constexpr int kScaleOffsetLow = -2;
// Per-tensor adjustments of the 1/sqrt(K) exponent. FP4 codes are drawn uniformly over all
// 16 (RMS ~2.9); the shared expert's FP8 values are uniform(-1, 1) (RMS ~0.6) before
// quantization, so the shared tensors sit higher (2 binades in stage1, 3 in stage2, where
// they also make up for the smaller shared h) and the shared contribution is about as large
// as the routed slots' sum. Stage2 is lowered by 3 binades because h = SiLU(gate) * up has
// an RMS of ~3, not 1.
constexpr int kRoutedW1Exponent = 0;
constexpr int kRoutedW2Exponent = -3;
constexpr int kSharedW1Exponent = 2;
constexpr int kSharedW2Exponent = 0;
// The dummy routed row E-1 holds zeros with scale 1.0 (0x7F), as in aiter's test.
constexpr std::uint8_t kUnitScale = 0x7F;

// Work items of the parallel generation: 1 Mi elements each.
constexpr std::int64_t kChunk = std::int64_t{1} << 20;
std::int64_t chunks_of(std::int64_t elements) { return (elements + kChunk - 1) / kChunk; }

int ceil_log2(std::int64_t value) {
    int bits = 0;
    while ((std::int64_t{1} << bits) < value) ++bits;
    return bits;
}

// ~ -log2(sqrt(K)): keeps a K-long dot product of O(1) terms at O(1).
int weight_scale_exponent(std::int64_t k) { return -((ceil_log2(k) + 1) / 2); }

float symmetric_unit(const CounterRandom& random, std::uint64_t index) {
    return 2.0f * random.unit(index) - 1.0f;
}

void generate_activations(Problem& problem, const ProblemDims& dims) {
    const CounterRandom random(problem.seed, RandomStream::activations);
    assign_zeroed(problem.x_bf16, dims.x_elements());
    const auto elements = static_cast<std::int64_t>(problem.x_bf16.size());
    parallel_for(chunks_of(elements), [&](std::int64_t chunk) {
        const std::int64_t last = std::min((chunk + 1) * kChunk, elements);
        for (std::int64_t i = chunk * kChunk; i < last; ++i) {
            problem.x_bf16[static_cast<std::size_t>(i)] =
                encode_bf16(symmetric_unit(random, static_cast<std::uint64_t>(i)));
        }
    });
}

void generate_routing(Problem& problem, const ProblemDims& dims) {
    const CounterRandom ids_random(problem.seed, RandomStream::routing_ids);
    const CounterRandom scores_random(problem.seed, RandomStream::routing_scores);
    const std::int64_t routed_slots = dims.topk - 1;
    const std::int64_t routed_experts = dims.experts - 1;
    problem.topk_ids.resize(dims.routing_elements());
    problem.topk_weights.resize(dims.routing_elements());

    std::vector<std::int32_t> pool(static_cast<std::size_t>(routed_experts));
    std::vector<float> exps(static_cast<std::size_t>(routed_slots));
    for (std::int64_t t = 0; t < dims.tokens; ++t) {
        const std::size_t row = static_cast<std::size_t>(t * dims.topk);
        // Partial Fisher-Yates: the first routed_slots entries become distinct ids.
        std::iota(pool.begin(), pool.end(), 0);
        for (std::int64_t j = 0; j < routed_slots; ++j) {
            const auto remaining = static_cast<std::uint32_t>(routed_experts - j);
            const std::int64_t pick =
                j + ids_random.below(static_cast<std::uint64_t>(row) + j, remaining);
            std::swap(pool[static_cast<std::size_t>(j)], pool[static_cast<std::size_t>(pick)]);
            problem.topk_ids[row + j] = pool[static_cast<std::size_t>(j)];
        }
        problem.topk_ids[row + routed_slots] = static_cast<std::int32_t>(dims.shared_expert);

        // Softmax over random scores, then DSV4's routed scaling.
        float max_score = -kScoreRange;
        for (std::int64_t j = 0; j < routed_slots; ++j) {
            const float score = kScoreRange * symmetric_unit(scores_random, row + j);
            exps[static_cast<std::size_t>(j)] = score;
            max_score = std::max(max_score, score);
        }
        float sum = 0.0f;
        for (float& value : exps) {
            value = portable_exp(value - max_score);
            sum += value;
        }
        for (std::int64_t j = 0; j < routed_slots; ++j) {
            problem.topk_weights[row + j] =
                kRoutedScaling * (exps[static_cast<std::size_t>(j)] / sum);
        }
        problem.topk_weights[row + routed_slots] = kSharedWeight;
    }
}

// Routed MXFP4 weights [E, rows, K]: uniform codes, scales 2^(base + offset) per block; the
// dummy row E-1 is zero.
void generate_routed_weights(std::uint64_t seed, RandomStream codes_stream,
                             RandomStream scales_stream, int exponent_adjustment,
                             std::int64_t experts, std::int64_t rows, std::int64_t k,
                             std::vector<std::uint8_t>& codes, std::vector<std::uint8_t>& scales) {
    const CounterRandom codes_random(seed, codes_stream);
    const CounterRandom scales_random(seed, scales_stream);
    const std::int64_t routed_codes = (experts - 1) * rows * k / 2;
    const std::int64_t routed_scales = (experts - 1) * rows * (k / kMxBlockSize);
    assign_zeroed(codes, static_cast<std::size_t>(experts * rows * k / 2));
    assign_zeroed(scales, static_cast<std::size_t>(experts * rows * (k / kMxBlockSize)));
    std::fill(scales.begin() + routed_scales, scales.end(), kUnitScale);

    // Counter-based draws: each chunk of the tensors is its own work item, the same bytes
    // whatever the core count.
    // Byte b of a word is code 8 * word + b (the low byte first): on a little-endian host
    // that is the word's own byte order, so whole words are stored at once.
    parallel_for(chunks_of(routed_codes), [&](std::int64_t chunk) {
        const std::int64_t first = chunk * kChunk;  // a multiple of 8
        const std::int64_t last = std::min(first + kChunk, routed_codes);
        std::int64_t i = first;
        if constexpr (std::endian::native == std::endian::little) {
            for (; i + 8 <= last; i += 8) {
                const std::uint64_t word = codes_random.word(static_cast<std::uint64_t>(i / 8));
                std::memcpy(codes.data() + i, &word, sizeof word);
            }
        }
        for (; i < last; i += 8) {
            const std::uint64_t word = codes_random.word(static_cast<std::uint64_t>(i / 8));
            const std::int64_t end = std::min<std::int64_t>(i + 8, last);
            for (std::int64_t b = i; b < end; ++b) {
                codes[static_cast<std::size_t>(b)] =
                    static_cast<std::uint8_t>(word >> (8 * (b - i)));
            }
        }
    });
    // The kScaleOffsets codes a block can get, encoded once.
    const int base = weight_scale_exponent(k) + exponent_adjustment;
    std::uint8_t scale_codes[kScaleOffsets];
    for (std::uint32_t o = 0; o < kScaleOffsets; ++o) {
        scale_codes[o] = encode_e8m0_exponent(base + kScaleOffsetLow + static_cast<int>(o));
    }
    parallel_for(chunks_of(routed_scales), [&](std::int64_t chunk) {
        const std::int64_t last = std::min((chunk + 1) * kChunk, routed_scales);
        for (std::int64_t i = chunk * kChunk; i < last; ++i) {
            scales[static_cast<std::size_t>(i)] =
                scale_codes[scales_random.below(static_cast<std::uint64_t>(i), kScaleOffsets)];
        }
    });
}

// Shared FP8 weights [rows, K]: each 1x32 block is uniform(-1, 1) * 2^(base + offset),
// quantized as MXFP8 (so the codes and scales are what a real quantizer produces).
void generate_shared_weights(std::uint64_t seed, RandomStream values_stream,
                             RandomStream block_stream, int exponent_adjustment, std::int64_t rows,
                             std::int64_t k, std::vector<std::uint8_t>& codes,
                             std::vector<std::uint8_t>& scales) {
    const CounterRandom values_random(seed, values_stream);
    const CounterRandom block_random(seed, block_stream);
    const std::int64_t blocks = rows * (k / kMxBlockSize);
    assign_zeroed(codes, static_cast<std::size_t>(rows * k));
    assign_zeroed(scales, static_cast<std::size_t>(blocks));
    const int base = weight_scale_exponent(k) + exponent_adjustment;
    parallel_for(chunks_of(blocks), [&](std::int64_t chunk) {
        float block_values[kMxBlockSize];
        const std::int64_t last = std::min((chunk + 1) * kChunk, blocks);
        for (std::int64_t block = chunk * kChunk; block < last; ++block) {
            const int offset =
                kScaleOffsetLow + static_cast<int>(block_random.below(
                                      static_cast<std::uint64_t>(block), kScaleOffsets));
            const float magnitude = exact_pow2(base + offset);
            for (int i = 0; i < kMxBlockSize; ++i) {
                const auto index = static_cast<std::uint64_t>(block * kMxBlockSize + i);
                block_values[i] = magnitude * symmetric_unit(values_random, index);
            }
            scales[static_cast<std::size_t>(block)] =
                quantize_mx_block_fp8(block_values, codes.data() + block * kMxBlockSize);
        }
    });
}

}  // namespace

bool shares_weights(const family::ShapeKey& a, const family::ShapeKey& b) {
    family::ShapeKey a_any_token = a;
    a_any_token.token = b.token;
    return a_any_token == b;
}

void generate_token_inputs(Problem& problem, const family::ShapeKey& shape) {
    validate_shape(shape);
    if (!shares_weights(problem.shape, shape)) {
        throw Error("generate_token_inputs: shape " + family::shape_key_string(shape) +
                    " does not share the weights of " + family::shape_key_string(problem.shape));
    }
    const ProblemDims dims(shape);
    problem.shape = shape;
    generate_activations(problem, dims);
    generate_routing(problem, dims);
}

Problem generate_problem(const family::ShapeKey& shape, std::uint64_t seed) {
    validate_shape(shape);
    const ProblemDims dims(shape);
    Problem problem;
    problem.shape = shape;
    problem.seed = seed;
    generate_activations(problem, dims);
    generate_routing(problem, dims);
    generate_routed_weights(seed, RandomStream::w1_codes, RandomStream::w1_scales,
                            kRoutedW1Exponent, dims.experts, dims.gate_up_rows(), dims.hidden,
                            problem.w1_fp4, problem.w1_scale);
    generate_routed_weights(seed, RandomStream::w2_codes, RandomStream::w2_scales,
                            kRoutedW2Exponent, dims.experts, dims.hidden, dims.inter,
                            problem.w2_fp4, problem.w2_scale);
    generate_shared_weights(seed, RandomStream::shared_w1_values,
                            RandomStream::shared_w1_block_scales, kSharedW1Exponent,
                            dims.gate_up_rows(), dims.hidden, problem.shared_w1_fp8,
                            problem.shared_w1_scale);
    generate_shared_weights(seed, RandomStream::shared_w2_values,
                            RandomStream::shared_w2_block_scales, kSharedW2Exponent, dims.hidden,
                            dims.inter, problem.shared_w2_fp8, problem.shared_w2_scale);
    return problem;
}

}  // namespace fhmoe::kernels
