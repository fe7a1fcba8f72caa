#include "fhmoe/family/memory_estimate.hpp"

#include "fhmoe/family/legality.hpp"
#include "fhmoe/family/name_grammar.hpp"

namespace fhmoe::family {
namespace {

constexpr std::uint64_t kBf16Bytes = 2;
constexpr std::uint64_t kIndexBytes = 4;  // i32 ids, f32 weights
constexpr std::uint64_t kScaleBlock = kScaleBlockK;

std::uint64_t mxfp4_with_scales(std::uint64_t rows, std::uint64_t k) {
    return rows * (k / 2) + rows * (k / kScaleBlock);
}

std::uint64_t mxfp8_with_scales(std::uint64_t rows, std::uint64_t k) {
    return rows * k + rows * (k / kScaleBlock);
}

}  // namespace

MemoryEstimate estimate_device_memory(const ShapeKey& shape, const Candidate& candidate) {
    if (auto reason = why_shape_unsupported(shape)) {
        throw UnsupportedShape("shape " + shape_key_string(shape) + ": " + *reason);
    }
    const auto m = static_cast<std::uint64_t>(shape.token);
    const auto h = static_cast<std::uint64_t>(shape.model_dim);
    const auto i = static_cast<std::uint64_t>(shape.inter_dim);
    const auto e = static_cast<std::uint64_t>(shape.expert);
    const auto topk = static_cast<std::uint64_t>(shape.topk);
    const auto block_m = static_cast<std::uint64_t>(candidate.block_m);
    const std::uint64_t slots = m * topk;

    MemoryEstimate estimate;
    estimate.inputs = m * h * kBf16Bytes + 2 * slots * kIndexBytes +
                      mxfp4_with_scales(e * 2 * i, h) + mxfp4_with_scales(e * h, i) +
                      mxfp8_with_scales(2 * i, h) + mxfp8_with_scales(h, i);

    // Every expert's group padded to whole blocks, as moe_sorting sizes it (spec 6.3).
    const std::uint64_t sorted_length = slots + e * block_m - topk;
    const std::uint64_t blocks = (sorted_length + block_m - 1) / block_m;
    const std::uint64_t num_valid_ids = 2;
    estimate.sort =
        2 * sorted_length * kIndexBytes + blocks * kIndexBytes + num_valid_ids * kIndexBytes;

    estimate.quantized_input = mxfp8_with_scales(m, h);

    estimate.stage1_output = mxfp8_with_scales(slots, i);
    if (!candidate.stage1.fused_fp8_out) estimate.stage1_output += slots * i * kBf16Bytes;

    if (candidate.stage1.k_splits > 1) {
        constexpr std::uint64_t kFloatBytes = 4;
        estimate.stage1_partials = static_cast<std::uint64_t>(candidate.stage1.k_splits) *
                                   sorted_length * i * 2 * kFloatBytes;
    }

    estimate.stage2_output = m * h * kBf16Bytes;
    if (candidate.stage2.mode == Stage2Mode::reduce) {
        estimate.stage2_output += slots * h * kBf16Bytes;
    }
    return estimate;
}

std::uint64_t estimate_device_bytes(const ShapeKey& shape, const Candidate& candidate) {
    return estimate_device_memory(shape, candidate).total();
}

}  // namespace fhmoe::family
