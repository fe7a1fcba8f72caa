#pragma once

// Stage2 on the CPU: the down GEMM of the quantized h rows, times each slot's routing
// weight, and the epilogue of the candidate's mode. It honours every field of Stage2Config:
//   tile_m x tile_n x tile_k  the loop blocking (sorted rows x model_dim columns, K steps
//                             over inter_dim);
//   mode atomic               each slot's row is added into the bf16 output with an atomic
//                             compare-exchange (concurrent tiles hit the same token row, in
//                             a nondeterministic order, as serving's atomics do);
//   mode reduce               each slot writes its own bf16 row; a separate pass sums them;
//   persistent                a fixed set of workers pulls tiles from an atomic counter;
//                             otherwise each worker gets a static, contiguous range of tiles.

#include <atomic>
#include <cstdint>
#include <vector>

#include "cpu/moe_sorting.hpp"
#include "fhmoe/family/candidate.hpp"
#include "fhmoe/kernels/problem.hpp"
#include "problem/problem_dims.hpp"

namespace fhmoe::kernels {

struct Stage2Io {
    const Problem* problem = nullptr;
    const SortedRouting* routing = nullptr;
    const std::uint8_t* a2_codes = nullptr;   // [M * topk, I] MXFP8 h
    const std::uint8_t* a2_scales = nullptr;  // [M * topk, I / 32]
    std::uint16_t* out_bf16 = nullptr;        // [M, H], zeroed, atomic mode
    std::uint16_t* slot_out = nullptr;        // [M * topk, H], reduce mode
};

class Stage2Kernel {
public:
    // scale_block_skew != 0 plants a scale-indexing bug in the routed weights (tests).
    Stage2Kernel(const ProblemDims& dims, int block_m, const family::Stage2Config& config,
                 int workers, std::int64_t scale_block_skew);

    int participants() const { return static_cast<int>(lanes_.size()); }

    // Resets the persistent tile queue; call before every run.
    void prepare() { next_tile_.store(0, std::memory_order_relaxed); }

    // Called concurrently once for every participant in [0, participants()).
    void run(const Stage2Io& io, int participant);

    std::size_t workspace_bytes() const;

private:
    struct Lane {
        std::vector<float> a_stage;      // [tile_m][tile_k]
        std::vector<float> w_stage;      // [tile_k][tile_n]
        std::vector<float> accumulator;  // [tile_m][tile_n]
        float block[32];
    };

    void compute_tile(const Stage2Io& io, std::int64_t tile, Lane& lane) const;
    void store_tile(const Stage2Io& io, std::int64_t tile, const Lane& lane) const;

    ProblemDims dims_;
    int block_m_;
    family::Stage2Config config_;
    std::int64_t scale_block_skew_;
    std::vector<Lane> lanes_;
    std::atomic<std::int64_t> next_tile_{0};
};

// The reduce-mode epilogue kernel: out[t] = bf16(sum over slots of slot_out[t, slot]), for
// tokens [token_begin, token_end).
void reduce_slot_rows(const std::uint16_t* slot_out, std::int64_t topk, std::int64_t hidden,
                      std::int64_t token_begin, std::int64_t token_end, std::uint16_t* out_bf16);

}  // namespace fhmoe::kernels
