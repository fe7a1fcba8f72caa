#pragma once

// The small kernels around the two GEMM stages (device TUs only): moe_sorting, the MXFP8
// quantization pass, and reduce mode's slot reduction.

#include <cstdint>

#include "gpu/portability.hpp"
#include "gpu/stage_args.hpp"

namespace fhmoe::kernels::gpu {

struct SortBuffers {
    std::int32_t* sorted_ids = nullptr;     // [capacity rows]
    float* sorted_weights = nullptr;        // [capacity rows]
    std::int32_t* block_experts = nullptr;  // [capacity rows / block_m]
    std::int32_t* valid_rows = nullptr;     // [1]
    std::int32_t* expert_rows = nullptr;    // [E] scratch: counts, then first rows
};

// moe_sorting as serving runs it (spec 6.3 step 2, and kernels/cpu/moe_sorting.hpp): each
// expert's (token, slot) pairs in token order, padded to a multiple of block_m rows, padding
// rows carrying token = M and weight 0. Deterministic: no atomics decide an order.
void launch_moe_sorting(const std::int32_t* topk_ids, const float* topk_weights,
                        std::int64_t tokens, std::int64_t topk, std::int64_t experts, int block_m,
                        const SortBuffers& out, hipStream_t stream);

// bf16 rows [rows, columns] -> MXFP8 codes + one E8M0 scale per 1x32 block.
void launch_mxfp8_quant(const std::uint16_t* input, std::int64_t rows, std::int64_t columns,
                        std::uint8_t* codes, std::uint8_t* scales, hipStream_t stream);

// out[t] = bf16(sum over the topk slots of slot_out[t * topk + slot]), in slot order.
void launch_slot_reduction(const std::uint16_t* slot_out, std::int64_t tokens, std::int64_t topk,
                           std::int64_t hidden, std::uint16_t* out_bf16, hipStream_t stream);

}  // namespace fhmoe::kernels::gpu
