// moe_sorting on the device in three launches: count each expert's slots (one workgroup per
// expert), lay out the padded segments and the block owners (one workgroup), then place each
// expert's slots in token order (one workgroup per expert, a stable compaction by prefix
// sums), so the order never depends on which thread got there first.

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares;
// nvcc declares them implicitly, hipcc only through it.
#include "gpu/portability.hpp"

#include "gpu/routing_kernels.hpp"

namespace fhmoe::kernels::gpu {
namespace {

constexpr int kSortThreads = 256;

// Exclusive prefix sum of one int per thread over the workgroup; returns the total.
__device__ int workgroup_exclusive_scan(int value, int* scratch, int& exclusive) {
    const int t = static_cast<int>(threadIdx.x);
    scratch[t] = value;
    __syncthreads();
    for (int offset = 1; offset < kSortThreads; offset *= 2) {
        const int add = t >= offset ? scratch[t - offset] : 0;
        __syncthreads();
        scratch[t] += add;
        __syncthreads();
    }
    exclusive = scratch[t] - value;
    const int total = scratch[kSortThreads - 1];
    __syncthreads();
    return total;
}

__global__ void count_expert_slots(const std::int32_t* topk_ids, std::int64_t entries,
                                   std::int32_t* expert_rows) {
    __shared__ int scratch[kSortThreads];
    const auto expert = static_cast<std::int32_t>(blockIdx.x);
    int count = 0;
    for (std::int64_t i = threadIdx.x; i < entries; i += kSortThreads) {
        count += topk_ids[i] == expert ? 1 : 0;
    }
    int exclusive = 0;
    const int total = workgroup_exclusive_scan(count, scratch, exclusive);
    if (threadIdx.x == 0) expert_rows[expert] = total;
}

__global__ void lay_out_segments(std::int64_t tokens, std::int64_t experts, int block_m,
                                 SortBuffers out) {
    __shared__ std::int32_t total_rows;
    if (threadIdx.x == 0) {
        // Counts -> first padded row of each expert; a few hundred experts, in order.
        std::int32_t row = 0;
        for (std::int64_t e = 0; e < experts; ++e) {
            const std::int32_t count = out.expert_rows[e];
            out.expert_rows[e] = row;
            row += (count + block_m - 1) / block_m * block_m;
        }
        *out.valid_rows = row;
        total_rows = row;
    }
    __syncthreads();
    for (std::int64_t e = threadIdx.x; e < experts; e += blockDim.x) {
        const std::int32_t first = out.expert_rows[e];
        const std::int32_t end = e + 1 < experts ? out.expert_rows[e + 1] : total_rows;
        for (std::int32_t block = first / block_m; block < end / block_m; ++block) {
            out.block_experts[block] = static_cast<std::int32_t>(e);
        }
        // Every row of the segment starts as padding; placement overwrites the real ones.
        for (std::int32_t row = first; row < end; ++row) {
            out.sorted_ids[row] = static_cast<std::int32_t>(tokens);
            out.sorted_weights[row] = 0.0f;
        }
    }
}

__global__ void place_expert_slots(const std::int32_t* topk_ids, const float* topk_weights,
                                   std::int64_t entries, std::int64_t topk, SortBuffers out) {
    __shared__ int scratch[kSortThreads];
    const auto expert = static_cast<std::int32_t>(blockIdx.x);
    std::int32_t next = out.expert_rows[expert];
    for (std::int64_t base = 0; base < entries; base += kSortThreads) {
        const std::int64_t i = base + threadIdx.x;
        const bool mine = i < entries && topk_ids[i] == expert;
        int before = 0;
        const int found = workgroup_exclusive_scan(mine ? 1 : 0, scratch, before);
        if (mine) {
            const std::int64_t token = i / topk;
            const std::int64_t slot = i % topk;
            out.sorted_ids[next + before] = static_cast<std::int32_t>(token | (slot << 24));
            out.sorted_weights[next + before] = topk_weights[i];
        }
        next += found;
    }
}

}  // namespace

void launch_moe_sorting(const std::int32_t* topk_ids, const float* topk_weights,
                        std::int64_t tokens, std::int64_t topk, std::int64_t experts, int block_m,
                        const SortBuffers& out, hipStream_t stream) {
    const std::int64_t entries = tokens * topk;
    const auto grid = static_cast<unsigned>(experts);
    count_expert_slots<<<grid, kSortThreads, 0, stream>>>(topk_ids, entries, out.expert_rows);
    FHMOE_GPU_CHECK_LAUNCH();
    lay_out_segments<<<1, kSortThreads, 0, stream>>>(tokens, experts, block_m, out);
    FHMOE_GPU_CHECK_LAUNCH();
    place_expert_slots<<<grid, kSortThreads, 0, stream>>>(topk_ids, topk_weights, entries, topk,
                                                          out);
    FHMOE_GPU_CHECK_LAUNCH();
}

}  // namespace fhmoe::kernels::gpu
