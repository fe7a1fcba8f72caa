#pragma once

// Accuracy of an output against the reference: aiter's checkAllclose semantics (fraction
// of elements failing |out - ref| <= atol + rtol*|ref|; NaN/Inf or a max delta above
// 0.5*max(max|ref|, 1) is catastrophic) plus the cosine distance, both always reported.

#include <cstdint>
#include <span>

#include "fhmoe/tuning/result.hpp"

namespace fhmoe::kernels {

struct AccuracyTolerance {
    double rtol = 1e-2;
    double atol = 1e-2;
};

tuning::ErrorMetrics measure_accuracy(std::span<const float> reference,
                                      std::span<const std::uint16_t> out_bf16,
                                      const AccuracyTolerance& tolerance);

// The verdict: passes iff not catastrophic and mismatch_fraction <= err_ratio.
bool passes_accuracy(const tuning::ErrorMetrics& metrics, double err_ratio);

}  // namespace fhmoe::kernels
