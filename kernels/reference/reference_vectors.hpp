#pragma once

// The SIMD width of the CPU reference's sums, for the tests that show it changes no bit.

namespace fhmoe::kernels {

// Floats per vector in the reference's inner loop: 16 (AVX-512F), 8 (AVX) or 4 (SSE2, every
// x86-64 host; the only width elsewhere), the widest the host runs unless a
// ScopedReferenceVectorLimit narrows it. Each output is one sequential sum of separately
// rounded products at every width, so the digest is the same on every rank.
int reference_vector_floats();

// Caps reference_vector_floats() at `floats` while it lives (0: no cap). Process-wide, for
// tests on a host with wide vectors; not for concurrent use.
class ScopedReferenceVectorLimit {
public:
    explicit ScopedReferenceVectorLimit(int floats);
    ~ScopedReferenceVectorLimit();
    ScopedReferenceVectorLimit(const ScopedReferenceVectorLimit&) = delete;
    ScopedReferenceVectorLimit& operator=(const ScopedReferenceVectorLimit&) = delete;

private:
    int previous_;
};

}  // namespace fhmoe::kernels
