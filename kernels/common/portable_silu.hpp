#pragma once

// SiLU with an exp built from basic IEEE operations (Cody-Waite range reduction and the
// Cephes expf polynomial, about 1 ulp), so the reference, and the digest every rank
// compares, are bit-identical across standard libraries, whose expf may differ in the last
// bit. Requires no floating-point contraction (the kernels library builds with
// -ffp-contract=off).

#include <cstdint>

#include "common/float_bits.hpp"
#include "common/host_device.hpp"

namespace fhmoe::kernels {

FHMOE_HOST_DEVICE inline float portable_exp(float x) {
    if (!(x == x)) return x;
    if (x > 88.7228f) return bits_to_float(kFp32InfinityBits);
    if (x < -103.972f) return 0.0f;
    // n = round(x / ln2), computed as floor(x * log2(e) + 0.5).
    const float shifted = x * 1.44269504088896341f + 0.5f;
    int n = static_cast<int>(shifted);
    if (static_cast<float>(n) > shifted) --n;
    const float nf = static_cast<float>(n);
    const float r = (x - nf * 0.693359375f) - nf * -2.12194440e-4f;
    const float r2 = r * r;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float mantissa = (p * r2 + r) + 1.0f;
    // Two exact steps keep 2^n representable for n in [-150, 128].
    const int half = n / 2;
    return mantissa * exact_pow2(half) * exact_pow2(n - half);
}

FHMOE_HOST_DEVICE inline float portable_silu(float x) { return x / (1.0f + portable_exp(-x)); }

}  // namespace fhmoe::kernels
