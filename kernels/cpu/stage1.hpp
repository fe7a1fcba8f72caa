#pragma once

// Stage1 on the CPU: the gate/up GEMM over sorted blocks, SiLU(gate) * up, and the store of
// h (bf16, or MXFP8 when the candidate fuses the quantization). It honours every field of
// Stage1Config:
//   tile_m x tile_n x tile_k  the loop blocking: a tile is tile_m sorted rows by tile_n
//                             columns of h (2 * tile_n weight rows: gate and up); its K loop
//                             stages tile_k columns of A and W per step;
//   waves                     threads cooperating on one tile (a "workgroup"); tiles go to
//                             max(1, threads / waves) such groups;
//   k_waves                   each K step's scale blocks are split into k_waves slices with
//                             their own partial sums, reduced (in slice order) before SiLU;
//                             a tile's work is waves column chunks x k_waves slices, dealt
//                             to the group's waves threads round-robin;
//   k_splits                  the tile's K steps are cut into k_splits contiguous ranges
//                             (0: one), each with its own k_waves partial sums, all added
//                             in (range, slice) order; a tile's work is waves x k_waves x
//                             k_splits units;
//   gate_mode                 where the gate and up rows of a column are;
//   fused_fp8_out             the epilogue quantizes h to MXFP8 from fp32 itself; otherwise
//                             it stores bf16 and a separate pass quantizes.

#include <barrier>
#include <cstdint>
#include <memory>
#include <vector>

#include "cpu/moe_sorting.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {

struct Stage1Io {
    const Problem* problem = nullptr;
    const SortedRouting* routing = nullptr;
    const std::uint8_t* a1_codes = nullptr;   // [M, H] MXFP8 activations
    const std::uint8_t* a1_scales = nullptr;  // [M, H / 32]
    std::uint16_t* a2_bf16 = nullptr;         // [M * topk, I] when not fused
    std::uint8_t* a2_codes = nullptr;         // [M * topk, I] when fused
    std::uint8_t* a2_scales = nullptr;        // [M * topk, I / 32] when fused
};

class Stage1Kernel {
public:
    Stage1Kernel(const ProblemDims& dims, int block_m, const family::Stage1Config& config,
                 int groups);

    int participants() const { return static_cast<int>(groups_.size()) * config_.waves; }

    // Called concurrently once for every participant in [0, participants()).
    void run(const Stage1Io& io, int participant);

    std::size_t workspace_bytes() const;

private:
    struct Group {
        std::vector<float> partial;  // [k_splits][k_waves][waves][tile_m][2 * chunk_columns]
        std::unique_ptr<std::barrier<>> barrier;
    };
    struct Lane {
        std::vector<float> a_stage;  // [tile_m][slice_k]
        std::vector<float> w_stage;  // [slice_k][2 * chunk_columns]: gate columns, then up
        std::vector<float> h_row;    // [tile_n]
        float block[32];
    };

    void compute_unit(const Stage1Io& io, std::int64_t tile, int chunk, int slice, int split,
                      Lane& lane, float* partial) const;
    void store_rows(const Stage1Io& io, std::int64_t tile, int lane_index, Lane& lane,
                    const float* partial) const;
    // Where a (chunk, K slice, K split) unit's partial sums start in its group's partials.
    std::size_t unit_offset(int chunk, int slice, int split) const;

    ProblemDims dims_;
    int block_m_;
    family::Stage1Config config_;
    int chunk_columns_;  // h columns per wave chunk: tile_n / waves
    int slice_blocks_;   // scale blocks per K slice: tile_k / 32 / k_waves
    int k_splits_;       // contiguous ranges of K steps (config.k_splits, 0 meaning 1)
    std::vector<Group> groups_;
    std::vector<Lane> lanes_;
};

}  // namespace fhmoe::kernels
