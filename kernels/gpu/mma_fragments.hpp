#pragma once

// NVIDIA's warp-level matrix instruction and the operand conversions of the matrix path
// (device TUs of an NVIDIA build only; the AMD build keeps the scalar kernels).
//
// Hopper runs FP8 mma.sync only by converting to FP16 first (CUTLASS maintainers: the e4m3
// m16n8k32 form is native on sm_89, emulated on sm_90), so the path feeds FP16 to
// mma.m16n8k16 (HMMA) itself and does the conversions where they are cheapest:
//   FP4 e2m1 -> FP16 by bit moves: e2m1 bits s.e1e0.m placed at FP16 bits 15 and 11..9 give
//     the value times 2^-14 exactly (zero and the subnormal 0.5 included), so the weight
//     scale carries a factor 2^14;
//   FP8 e4m3 -> FP16 with the hardware conversion (exact: FP16 covers e4m3's range).
// Layouts and the element order inside a lane's 8 bytes: gpu/matrix_layout.hpp.

#if !defined(FHMOE_GPU_VENDOR_NVIDIA)
#error "gpu/mma_fragments.hpp is for the NVIDIA matrix path"
#endif

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace fhmoe::kernels::gpu {

// The FP4 weights' FP16 codes are their values times 2^-14.
inline constexpr float kFp4AsFp16Factor = 16384.0f;

// d += a * b on one m16n8k16 tile, FP16 operands, FP32 accumulators.
__device__ __forceinline__ void mma_f16(float (&d)[4], const std::uint32_t (&a)[4],
                                        std::uint32_t b0, std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// d += a * b on one m16n8k16 tile, BF16 operands, FP32 accumulators: the large token tiles'
// instruction (gpu/matrix_shared_gemm.hpp), whose operands carry their scales.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const std::uint32_t (&a)[4],
                                         std::uint32_t b0, std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// An FP16 pair times `factor`, as a BF16 pair. Exact for the matrix path's operands: an FP4 or
// FP8 value has at most 4 significant bits, BF16 keeps 8 and has FP32's exponent range.
__device__ __forceinline__ std::uint32_t scaled_f16x2_to_bf16x2(std::uint32_t pair, float factor) {
    __half2 h;
    __builtin_memcpy(&h, &pair, sizeof h);
    const float2 v = __half22float2(h);
    const __nv_bfloat162 r = __floats2bfloat162_rn(v.x * factor, v.y * factor);
    std::uint32_t out;
    __builtin_memcpy(&out, &r, sizeof out);
    return out;
}

// Two e4m3 bytes (bits 0-15 of `word` when `high` is false, else 16-31) -> an FP16 pair, the
// lower byte in the lower half.
__device__ __forceinline__ std::uint32_t fp8x2_to_f16x2(std::uint32_t word, bool high) {
    std::uint32_t out;
    const auto pair = static_cast<unsigned short>(high ? word >> 16 : word & 0xFFFFu);
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;\n" : "=r"(out) : "h"(pair));
    return out;
}

// A packed FP4 word in the upload's bit order (byte k holds e2k and e2k+1,
// gpu/matrix_layout.hpp) -> four FP16 pairs (scaled by 2^-14): (e0,e2) (e4,e6) (e1,e3)
// (e5,e7). Each byte of `even`/`odd` holds the high byte of one element's FP16 code (its low
// byte is zero); byte_perm then places two of them.
__device__ __forceinline__ void fp4x8_to_f16x8(std::uint32_t word, std::uint32_t (&out)[4]) {
    const std::uint32_t even = word & 0x8E8E8E8Eu;
    const std::uint32_t odd = ((word >> 3) & 0x0E0E0E0Eu) | ((word & 0x01010101u) << 7);
    // Selector nibbles pick bytes of (x, 0): 4 is a zero byte.
    out[0] = __byte_perm(even, 0u, 0x1404);
    out[1] = __byte_perm(even, 0u, 0x3424);
    out[2] = __byte_perm(odd, 0u, 0x1404);
    out[3] = __byte_perm(odd, 0u, 0x3424);
}

// A packed FP4 word times its block's scale, as four BF16 pairs in fp4x8_to_f16x8's order:
// the large token tiles' weight conversion (gpu/matrix_shared_gemm.hpp). Each element's BF16
// code comes from two byte tables indexed by its 3-bit magnitude (one byte_perm looks up four
// elements), its sign bit is moved in, and one BF16 multiplication per pair applies the scale
// 2^(code - 127) (`scale_pair`: its BF16 code, code << 7, in both halves). Exact: an FP4 value
// has 2 significant bits, and a scale code 0 (only all-zero blocks) is 0, as e8m0_float makes
// it. 24 instructions per word (22 on the MXFP4 nibbles as stored), where FP16 codes, FP32
// products and a BF16 pack took 31.
__device__ __forceinline__ void fp4x8_to_scaled_bf16x8(std::uint32_t word, std::uint32_t scale_pair,
                                                       std::uint32_t (&out)[4]) {
    // BF16 codes of the magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6: high bytes, then low bytes.
    constexpr std::uint32_t kHigh0 = 0x3F3F3F00u, kHigh1 = 0x40404040u;
    constexpr std::uint32_t kLow0 = 0xC0800000u, kLow1 = 0xC0804000u;
    // Nibble i: element i's magnitude (the upload's bit order, fp4x8_to_f16x8); a selector's
    // bit 3 is a mode bit.
    const std::uint32_t magnitudes = ((word >> 1) & 0x07070707u) | (word & 0x70707070u);
    const std::uint32_t upper = magnitudes >> 16;
    // Bytes j of high_a/low_a: element j's codes (j = 0..3); of high_b/low_b: element 4 + j's.
    const std::uint32_t high_a = __byte_perm(kHigh0, kHigh1, magnitudes);
    const std::uint32_t low_a = __byte_perm(kLow0, kLow1, magnitudes);
    const std::uint32_t high_b = __byte_perm(kHigh0, kHigh1, upper);
    const std::uint32_t low_b = __byte_perm(kLow0, kLow1, upper);
    // Sign bits (bit 7 of a byte for its even element, bit 0 for its odd one): bytes 0 and 1
    // (2 and 3) of the word moved to bytes 1 and 3 put elements 0 and 2 (4 and 6) at bits 15
    // and 31, elements 1 and 3 (5 and 7) at bits 8 and 24.
    const std::uint32_t signs_a = __byte_perm(word, 0u, 0x1404);
    const std::uint32_t signs_b = __byte_perm(word, 0u, 0x3424);
    constexpr std::uint32_t kSignBits = 0x80008000u;
    const std::uint32_t pairs[4] = {
        __byte_perm(low_a, high_a, 0x6240) | (signs_a & kSignBits),         // (e0, e2)
        __byte_perm(low_b, high_b, 0x6240) | (signs_b & kSignBits),         // (e4, e6)
        __byte_perm(low_a, high_a, 0x7351) | ((signs_a << 7) & kSignBits),  // (e1, e3)
        __byte_perm(low_b, high_b, 0x7351) | ((signs_b << 7) & kSignBits),  // (e5, e7)
    };
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        asm("mul.rn.bf16x2 %0, %1, %2;\n" : "=r"(out[i]) : "r"(pairs[i]), "r"(scale_pair));
    }
}

// One lane's eight FP8 bytes of a block (e0 e2 e4 e6 | e1 e3 e5 e7) -> four FP16 pairs in the
// same order as fp4x8_to_f16x8.
__device__ __forceinline__ void fp8x8_to_f16x8(std::uint32_t w0, std::uint32_t w1,
                                               std::uint32_t (&out)[4]) {
    out[0] = fp8x2_to_f16x2(w0, false);
    out[1] = fp8x2_to_f16x2(w0, true);
    out[2] = fp8x2_to_f16x2(w1, false);
    out[3] = fp8x2_to_f16x2(w1, true);
}

// The E8M0 scale code as a float (2^(code-127)); codes 1..254, which is every scale a real
// block has (0 would be 2^-127 and 255 NaN).
__device__ __forceinline__ float e8m0_float(std::uint32_t code) {
    return __uint_as_float(code << 23);
}

}  // namespace fhmoe::kernels::gpu
