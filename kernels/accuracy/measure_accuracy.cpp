// aiter's checkAllclose (spec section 3) plus the cosine distance, accumulated in double,
// block by block on the host's cores.
// Unlike the tuner's checkAllclose, which returns early once the mismatch fraction passes
// the tolerance, every metric is always computed, so a mismatch is reported with its size.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/bf16.hpp"
#include "common/host_parallel.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/kernels/accuracy.hpp"

namespace fhmoe::kernels {

namespace {

// Elements per block: every block is summed on its own and the blocks' sums are added in
// block order, so the metrics are the same bits whatever the thread count. A DSV4 output at
// 2048 tokens (14.7 M elements) took 77 ms on one thread of the H200 host, more than most
// candidates' timed runs (tools/gpu/bench/gpu_candidate_phases.cpp, docs/performance.md).
constexpr std::size_t kBlockElements = std::size_t{1} << 16;

struct BlockSums {
    std::size_t mismatches = 0;
    bool non_finite = false;
    double max_abs_reference = 0.0;
    double max_abs_delta = 0.0;
    double dot = 0.0;
    double squares = 0.0;
};

BlockSums block_sums(std::span<const float> reference, std::span<const std::uint16_t> out_bf16,
                     const AccuracyTolerance& tolerance) {
    BlockSums sums;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double expected = reference[i];
        const double actual = decode_bf16(out_bf16[i]);
        if (!std::isfinite(expected) || !std::isfinite(actual)) {
            sums.non_finite = true;
            ++sums.mismatches;  // never close: NaN compares unequal, and inf is catastrophic
            continue;
        }
        const double delta = std::abs(actual - expected);
        if (delta > tolerance.atol + tolerance.rtol * std::abs(expected)) ++sums.mismatches;
        sums.max_abs_delta = std::max(sums.max_abs_delta, delta);
        sums.max_abs_reference = std::max(sums.max_abs_reference, std::abs(expected));
        sums.dot += actual * expected;
        sums.squares += actual * actual + expected * expected;
    }
    return sums;
}

}  // namespace

tuning::ErrorMetrics measure_accuracy(std::span<const float> reference,
                                      std::span<const std::uint16_t> out_bf16,
                                      const AccuracyTolerance& tolerance) {
    if (reference.size() != out_bf16.size()) {
        throw Error("measure_accuracy: output has " + std::to_string(out_bf16.size()) +
                    " elements, the reference " + std::to_string(reference.size()));
    }
    const std::size_t blocks = (reference.size() + kBlockElements - 1) / kBlockElements;
    std::vector<BlockSums> per_block(blocks);
    const auto sum_block = [&](std::int64_t block) {
        const std::size_t first = static_cast<std::size_t>(block) * kBlockElements;
        const std::size_t count = std::min(kBlockElements, reference.size() - first);
        per_block[static_cast<std::size_t>(block)] =
            block_sums(reference.subspan(first, count), out_bf16.subspan(first, count), tolerance);
    };
    if (blocks > 1) {
        parallel_for(static_cast<std::int64_t>(blocks), sum_block);
    } else if (blocks == 1) {
        sum_block(0);
    }
    BlockSums total;
    for (const BlockSums& b : per_block) {
        total.mismatches += b.mismatches;
        total.non_finite = total.non_finite || b.non_finite;
        total.max_abs_reference = std::max(total.max_abs_reference, b.max_abs_reference);
        total.max_abs_delta = std::max(total.max_abs_delta, b.max_abs_delta);
        total.dot += b.dot;
        total.squares += b.squares;
    }
    tuning::ErrorMetrics metrics;
    metrics.mismatch_fraction = reference.empty() ? 0.0
                                                  : static_cast<double>(total.mismatches) /
                                                        static_cast<double>(reference.size());
    metrics.cosine_distance = 1.0 - 2.0 * total.dot / std::max(total.squares, 1e-12);
    metrics.max_abs_delta =
        total.non_finite ? std::numeric_limits<double>::infinity() : total.max_abs_delta;
    metrics.catastrophic =
        total.non_finite || total.max_abs_delta > 0.5 * std::max(total.max_abs_reference, 1.0);
    return metrics;
}

bool passes_accuracy(const tuning::ErrorMetrics& metrics, double err_ratio) {
    return !metrics.catastrophic && metrics.mismatch_fraction <= err_ratio;
}

bool passes_accuracy(const tuning::ErrorMetrics& metrics, double err_ratio,
                     double max_cosine_distance) {
    return passes_accuracy(metrics, err_ratio) && metrics.cosine_distance <= max_cosine_distance;
}

}  // namespace fhmoe::kernels
