// Reduce mode's epilogue kernel: each token's topk slot rows summed in fp32, in slot order,
// rounded once to bf16.

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares;
// nvcc declares them implicitly, hipcc only through it.
#include "gpu/portability.hpp"

#include "common/bf16.hpp"
#include "gpu/routing_kernels.hpp"

namespace fhmoe::kernels::gpu {
namespace {

constexpr int kReduceThreads = 256;

__global__ void reduce_slot_rows(const std::uint16_t* slot_out, std::int64_t tokens,
                                 std::int64_t topk, std::int64_t hidden, std::uint16_t* out) {
    const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * kReduceThreads + threadIdx.x;
    if (index >= tokens * hidden) return;
    const std::int64_t token = index / hidden;
    const std::int64_t column = index % hidden;
    const std::uint16_t* slots = slot_out + token * topk * hidden + column;
    float sum = 0.0f;
    for (std::int64_t slot = 0; slot < topk; ++slot) sum += decode_bf16(slots[slot * hidden]);
    out[index] = encode_bf16(sum);
}

}  // namespace

void launch_slot_reduction(const std::uint16_t* slot_out, std::int64_t tokens, std::int64_t topk,
                           std::int64_t hidden, std::uint16_t* out_bf16, hipStream_t stream) {
    const std::int64_t elements = tokens * hidden;
    const auto grid = static_cast<unsigned>((elements + kReduceThreads - 1) / kReduceThreads);
    reduce_slot_rows<<<grid, kReduceThreads, 0, stream>>>(slot_out, tokens, topk, hidden, out_bf16);
    FHMOE_GPU_CHECK_LAUNCH();
}

}  // namespace fhmoe::kernels::gpu
