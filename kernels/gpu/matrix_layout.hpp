#pragma once

// The "mma-ready" device layouts of the matrix (tensor-core) path: how weights, activations and
// their E8M0 scales are laid out so that each lane of a warp fetches its whole operand fragment
// of an m16n8k16 matrix instruction with one coalesced 16-byte load (a warp reads 512
// contiguous bytes). Weights are rearranged once, at upload (as serving stacks pre-shuffle
// weights at load time); activations are written in this layout by the quantization kernels.
//
// Fragments (PTX ISA, mma.m16n8k16 .f16, f32 accumulators), lane = 4 g + t:
//   A (16 weight rows x 16 K): a0 = (row g, k 2t..2t+1), a1 = (row g+8, ...), a2 = (row g,
//   k 2t+8..2t+9), a3 = (row g+8, ...); B (16 K x 8 tokens): b0 = (k 2t..2t+1, token g),
//   b1 = (k 2t+8..2t+9, token g); C: c0,c1 = (row g, tokens 2t, 2t+1), c2,c3 = (row g+8, ...).
// A dot product over one 32-wide scale block does not depend on the order of its K terms, so
// each lane takes the eight K elements 8t..8t+7 of a block for both operands and feeds them to
// the block's two instructions as pairs (e0,e2) (e4,e6) | (e1,e3) (e5,e7): one packed FP4 word
// of a weight row, or eight FP8 bytes stored in that order, is a lane's whole share of a block.
//
// Rows of a 16-row weight tile are chosen so the epilogue needs no data exchange between lanes:
//   stage1 tile j: row g = the gate row of h column 8j + g, row g+8 = its up row, so a lane
//                  holds gate and up of the same column (SiLU(gate) * up in registers);
//   stage2 tile j: row g = output column 16j + 2g, row g+8 = column 16j + 2g + 1, so a lane
//                  holds an adjacent bf16 pair of one token (one 32-bit atomic).
//
// Layouts (K = the GEMM's reduction length, a multiple of 64; blocks of 32, pairs of blocks):
//   FP4 weights   [matrix][tile][K/64 pairs][32 lanes][16 B]: per lane, block 2p: row g's
//                 packed word t, row g+8's word t; then block 2p+1 the same. Each byte's two
//                 elements (MXFP4's 2k low nibble, 2k + 1 high) rearranged at upload: the even
//                 one's magnitude at bits 1-3 and sign at bit 7, the odd one's at 4-6 and 0,
//                 so that one mask of a word is the even elements' FP16 codes' high bytes
//                 (gpu/mma_fragments.hpp's fp4x8_to_f16x8; 9 instructions per word, 11 on
//                 the nibbles as stored).
//   FP8 weights   [tile][K/32 blocks][32 lanes][16 B]: row g's elements 8t..8t+7 in the order
//                 e0 e2 e4 e6 e1 e3 e5 e7, then row g+8's.
//   weight scales [matrix][tile][K/64 pairs][8 g][4 B]: row g block 2p, row g block 2p+1,
//                 row g+8 block 2p, row g+8 block 2p+1.
//   activations   [row][K/64 pairs][4 t][16 B]: block 2p's elements 8t..8t+7 in the order
//                 e0 e2 e4 e6 e1 e3 e5 e7, then block 2p+1's; scales [row][K/32] as BF16
//                 factors (mx_scale_factor_bf16 below).
//   bf16 activations (large token tiles, gpu/matrix_shared_gemm.hpp): the MXFP8 values with
//                 their scales applied, as BF16 (exact), [row][K/32 blocks][4 t][8 elements]
//                 in the same element order: a lane's 16 bytes are its four B registers of
//                 one block's two instructions.

#include <cstdint>

#include "common/host_device.hpp"

namespace fhmoe::kernels::gpu {

inline constexpr int kMmaTileRows = 16;  // weight rows per matrix-instruction tile
inline constexpr int kMmaTokens = 8;     // tokens per matrix instruction
inline constexpr int kPairK = 64;        // K elements per pair of scale blocks
inline constexpr int kLaneBytes = 16;    // one lane's share of a pair (FP4) or a block (FP8)
inline constexpr int kWarpTileBytes = 32 * kLaneBytes;

// Byte offset of (row, pair) in an activation matrix of K columns in the mma layout; a lane t
// reads the 16 bytes at + 16 t.
FHMOE_HOST_DEVICE inline std::int64_t activation_pair_offset(std::int64_t row, std::int64_t pair,
                                                             std::int64_t k) {
    return (row * (k / kPairK) + pair) * (4 * kLaneBytes);
}

// Where element `column` of a 32-block's codes goes inside the lane's 8 bytes of that block:
// the lane is column / 8, the byte (e0 e2 e4 e6 e1 e3 e5 e7 order) comes from column % 8.
FHMOE_HOST_DEVICE inline int fragment_byte_of(int element_in_lane) {
    return (element_in_lane & 1) * 4 + (element_in_lane >> 1);
}

// The matrix path keeps its activations' E8M0 scales as BF16 factors, 2^(code - 127) built as
// code << 7 (code 0, which only all-zero blocks get, is 0; 255, NaN, is infinity): a pair's two
// blocks are one 32-bit load, each a float in one instruction (a shift or a mask), where
// decoding an E8M0 byte took two per scale in the K loop. The value the codes decoded to there,
// so the sums are unchanged; a float factor would take a register more per token column.
FHMOE_HOST_DEVICE inline std::uint16_t mx_scale_factor_bf16(std::uint8_t code) {
    return static_cast<std::uint16_t>(code << 7);
}

// Where element `element` (0..31) of block `block` of row `row` lives in an mma-layout
// activation matrix (codes) of k columns.
FHMOE_HOST_DEVICE inline std::int64_t mma_code_offset(std::int64_t row, std::int64_t block,
                                                      int element, std::int64_t k) {
    return activation_pair_offset(row, block / 2, k) + (block % 2) * 8 +
           (element / 8) * kLaneBytes + fragment_byte_of(element % 8);
}

// Element index of (row, block, element of the block) in a bf16 activation matrix of K columns.
FHMOE_HOST_DEVICE inline std::int64_t activation_bf16_index(std::int64_t row, std::int64_t block,
                                                            int element, std::int64_t k) {
    return (row * (k / 32) + block) * 32 + (element / 8) * 8 + fragment_byte_of(element % 8);
}

}  // namespace fhmoe::kernels::gpu
