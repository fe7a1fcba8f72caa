#pragma once

// Where one expert's weights lie in the matrix path's upload (gpu/matrix_layout.hpp,
// gpu/matrix_weights.hpp): stage1's gate/up codes and scales, stage2's down codes and scales,
// each region contiguous. The routed experts' codes are MXFP4 ([E][...], half a byte an
// element), the shared expert's FP8 (one copy, a byte an element); scales one byte per 32
// elements. The decode routing's L2 prefetch reads these regions (fused_routing.hip) and the
// host sizes the prefetch with them, so the two cannot disagree. Plain types: device
// translation units include it.

#include <cstdint>

#include "common/host_device.hpp"
#include "gpu/weight_pointers.hpp"

namespace fhmoe::kernels::gpu {

struct WeightRegion {
    const std::uint8_t* bytes = nullptr;
    std::int64_t size = 0;
};

inline constexpr int kWeightRegionsPerExpert = 4;

// base + offset, where there is a base (the host sizes regions without pointers).
FHMOE_HOST_DEVICE inline const std::uint8_t* offset_of(const std::uint8_t* base,
                                                       std::int64_t offset) {
    return base != nullptr ? base + offset : nullptr;
}

FHMOE_HOST_DEVICE inline void expert_weight_regions(
    const WeightPointers& w, std::int64_t expert, bool shared, std::int64_t hidden,
    std::int64_t inter, WeightRegion (&regions)[kWeightRegionsPerExpert]) {
    const std::int64_t stage1 = 2 * inter * hidden;  // gate and up elements
    const std::int64_t stage2 = hidden * inter;      // down elements
    if (shared) {
        regions[0] = {w.shared_w1_fp8, stage1};
        regions[1] = {w.shared_w1_scale, stage1 / 32};
        regions[2] = {w.shared_w2_fp8, stage2};
        regions[3] = {w.shared_w2_scale, stage2 / 32};
        return;
    }
    regions[0] = {offset_of(w.w1_fp4, expert * (stage1 / 2)), stage1 / 2};
    regions[1] = {offset_of(w.w1_scale, expert * (stage1 / 32)), stage1 / 32};
    regions[2] = {offset_of(w.w2_fp4, expert * (stage2 / 2)), stage2 / 2};
    regions[3] = {offset_of(w.w2_scale, expert * (stage2 / 32)), stage2 / 32};
}

// One expert's weight bytes, both stages, codes and scales.
FHMOE_HOST_DEVICE inline std::int64_t expert_weight_bytes(bool shared, std::int64_t hidden,
                                                          std::int64_t inter) {
    WeightRegion regions[kWeightRegionsPerExpert];
    expert_weight_regions(WeightPointers{}, 0, shared, hidden, inter, regions);
    std::int64_t bytes = 0;
    for (const WeightRegion& r : regions) bytes += r.size;
    return bytes;
}

// The most weight bytes one step reads: every routed slot a different expert, and the shared
// expert (topk counts its slot; experts its id).
FHMOE_HOST_DEVICE inline std::int64_t step_weight_bytes(std::int64_t tokens, std::int64_t topk,
                                                        std::int64_t experts, std::int64_t hidden,
                                                        std::int64_t inter) {
    const std::int64_t routed_slots = tokens * (topk - 1);
    const std::int64_t routed = routed_slots < experts - 1 ? routed_slots : experts - 1;
    return routed * expert_weight_bytes(false, hidden, inter) +
           expert_weight_bytes(true, hidden, inter);
}

}  // namespace fhmoe::kernels::gpu
