// aiter's checkAllclose (spec section 3) plus the cosine distance, accumulated in double.
// Unlike the tuner's checkAllclose, which returns early once the mismatch fraction passes
// the tolerance, every metric is always computed, so a mismatch is reported with its size.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "common/bf16.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/kernels/accuracy.hpp"

namespace fhmoe::kernels {

tuning::ErrorMetrics measure_accuracy(std::span<const float> reference,
                                      std::span<const std::uint16_t> out_bf16,
                                      const AccuracyTolerance& tolerance) {
    if (reference.size() != out_bf16.size()) {
        throw Error("measure_accuracy: output has " + std::to_string(out_bf16.size()) +
                    " elements, the reference " + std::to_string(reference.size()));
    }
    tuning::ErrorMetrics metrics;
    std::size_t mismatches = 0;
    bool non_finite = false;
    double max_abs_reference = 0.0;
    double max_abs_delta = 0.0;
    double dot = 0.0;
    double squares = 0.0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double expected = reference[i];
        const double actual = decode_bf16(out_bf16[i]);
        if (!std::isfinite(expected) || !std::isfinite(actual)) {
            non_finite = true;
            ++mismatches;  // never close: NaN compares unequal, and inf is catastrophic anyway
            continue;
        }
        const double delta = std::abs(actual - expected);
        if (delta > tolerance.atol + tolerance.rtol * std::abs(expected)) ++mismatches;
        max_abs_delta = std::max(max_abs_delta, delta);
        max_abs_reference = std::max(max_abs_reference, std::abs(expected));
        dot += actual * expected;
        squares += actual * actual + expected * expected;
    }
    metrics.mismatch_fraction =
        reference.empty() ? 0.0
                          : static_cast<double>(mismatches) / static_cast<double>(reference.size());
    metrics.cosine_distance = 1.0 - 2.0 * dot / std::max(squares, 1e-12);
    metrics.max_abs_delta = non_finite ? std::numeric_limits<double>::infinity() : max_abs_delta;
    metrics.catastrophic = non_finite || max_abs_delta > 0.5 * std::max(max_abs_reference, 1.0);
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
