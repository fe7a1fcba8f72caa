#pragma once

// Accuracy of an output against the reference: aiter's checkAllclose semantics (fraction
// of elements failing |out - ref| <= atol + rtol*|ref|; NaN/Inf or a max delta above
// 0.5*max(max|ref|, 1) is catastrophic) plus the cosine distance, both always reported.

#include <cstdint>
#include <span>

#include "fhmoe/tuning/result.hpp"

namespace fhmoe::kernels {

// Defaults 0.1 / 0.1, not aiter's 1e-2: serving runs two stage1 variants that round h
// differently (fused: fp32 -> MXFP8; unfused: fp32 -> bf16 -> MXFP8). The reference follows
// the fused one; the unfused one's double rounding moves ~3% of h codes by one fp8 step.
// Measured on H=256, I=128 (output RMS ~1.4), the unfused variant, correct, has up to 20%
// of its outputs beyond 1e-2, 2.5% beyond 5e-2 and 0.4% beyond 0.1 (cosine distance up to
// 3e-4); the fused one none beyond 3e-2 (cosine ~5e-6). A scale-indexing bug puts ~90%
// beyond 0.05 and ~80% beyond 0.1 (cosine ~0.25). So 0.1 passes every correct variant ten
// times below errRatio 0.05 and still fails the bug; kMaxCosineDistance adds a bar that a
// subtler global error cannot slip under.
struct AccuracyTolerance {
    double rtol = 0.1;
    double atol = 0.1;
};

// The bar aiter's production FHMoE tests put on the cosine distance (spec 6.3 step 7).
inline constexpr double kMaxCosineDistance = 1e-3;

tuning::ErrorMetrics measure_accuracy(std::span<const float> reference,
                                      std::span<const std::uint16_t> out_bf16,
                                      const AccuracyTolerance& tolerance);

// The verdict: passes iff not catastrophic and mismatch_fraction <= err_ratio.
bool passes_accuracy(const tuning::ErrorMetrics& metrics, double err_ratio);

// The stricter verdict: also requires cosine_distance <= max_cosine_distance (a separate
// bar: judging a cosine distance by errRatio, as aiter's FMoE tuner does, is far too loose).
bool passes_accuracy(const tuning::ErrorMetrics& metrics, double err_ratio,
                     double max_cosine_distance);

}  // namespace fhmoe::kernels
