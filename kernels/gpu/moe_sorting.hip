// moe_sorting on the device in three launches: count each expert's slots (one workgroup per
// expert), lay out the padded segments and the block owners (one workgroup, a scan over the
// experts), then place each expert's slots in token order (one workgroup per expert: each
// thread counts the matches in its own contiguous range of entries, one scan gives every
// thread its first row, and a second pass over the range writes them), so the order never
// depends on which thread got there first. One scan per kernel: the previous placement ran a
// scan per 256 entries (56 at 2048 DSV4 tokens) and the layout walked the experts in one
// thread, 168 us of a 3.1 ms op at 2048 tokens (docs/performance.md).

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares;
// nvcc declares them implicitly, hipcc only through it.
#include "gpu/portability.hpp"

#include "gpu/routing_kernels.hpp"

namespace fhmoe::kernels::gpu {
namespace {

constexpr int kSortThreads = 256;

constexpr int kLayoutThreads = 1024;

__device__ inline std::int64_t at_most(std::int64_t value, std::int64_t limit) {
    return value < limit ? value : limit;
}

// Exclusive prefix sum of one int per thread over a workgroup of kThreads; returns the total.
template <int kThreads>
__device__ int workgroup_exclusive_scan(int value, int* scratch, int& exclusive) {
    const int t = static_cast<int>(threadIdx.x);
    scratch[t] = value;
    __syncthreads();
    for (int offset = 1; offset < kThreads; offset *= 2) {
        const int add = t >= offset ? scratch[t - offset] : 0;
        __syncthreads();
        scratch[t] += add;
        __syncthreads();
    }
    exclusive = scratch[t] - value;
    const int total = scratch[kThreads - 1];
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
    const int total = workgroup_exclusive_scan<kSortThreads>(count, scratch, exclusive);
    if (threadIdx.x == 0) expert_rows[expert] = total;
}

// Counts -> first padded row of each expert, by a scan: thread t owns experts [t c, t c + c).
__global__ void __launch_bounds__(kLayoutThreads)
    lay_out_segments(std::int64_t experts, int block_m, SortBuffers out) {
    __shared__ int scratch[kLayoutThreads];
    const std::int64_t per_thread = (experts + kLayoutThreads - 1) / kLayoutThreads;
    const std::int64_t begin = at_most(threadIdx.x * per_thread, experts);
    const std::int64_t end = at_most(begin + per_thread, experts);
    int rows = 0;
    for (std::int64_t e = begin; e < end; ++e) {
        rows += (out.expert_rows[e] + block_m - 1) / block_m * block_m;
    }
    int first = 0;
    const int total = workgroup_exclusive_scan<kLayoutThreads>(rows, scratch, first);
    if (threadIdx.x == 0) *out.valid_rows = total;
    for (std::int64_t e = begin; e < end; ++e) {
        const std::int32_t padded = (out.expert_rows[e] + block_m - 1) / block_m * block_m;
        out.expert_rows[e] = first;
        for (std::int32_t block = first / block_m; block < (first + padded) / block_m; ++block) {
            out.block_experts[block] = static_cast<std::int32_t>(e);
        }
        first += padded;
    }
}

// Also writes the segment's padding rows (token = M, weight 0) after the real ones.
__global__ void place_expert_slots(const std::int32_t* topk_ids, const float* topk_weights,
                                   std::int64_t tokens, std::int64_t topk, std::int64_t experts,
                                   SortBuffers out) {
    const std::int64_t entries = tokens * topk;
    __shared__ int scratch[kSortThreads];
    const auto expert = static_cast<std::int32_t>(blockIdx.x);
    const std::int32_t first_row = out.expert_rows[expert];
    const std::int32_t end_row =
        expert + 1 < experts ? out.expert_rows[expert + 1] : *out.valid_rows;
    if (first_row == end_row) return;  // no slot routed here (the same in every thread)
    const std::int64_t per_thread = (entries + kSortThreads - 1) / kSortThreads;
    const std::int64_t begin = at_most(threadIdx.x * per_thread, entries);
    const std::int64_t end = at_most(begin + per_thread, entries);
    int mine = 0;
    for (std::int64_t i = begin; i < end; ++i) mine += topk_ids[i] == expert ? 1 : 0;
    int before = 0;
    const int total = workgroup_exclusive_scan<kSortThreads>(mine, scratch, before);
    for (std::int32_t row = first_row + total + static_cast<std::int32_t>(threadIdx.x);
         row < end_row; row += kSortThreads) {
        out.sorted_ids[row] = static_cast<std::int32_t>(tokens);
        out.sorted_weights[row] = 0.0f;
    }
    std::int32_t next = first_row + before;
    for (std::int64_t i = begin; i < end && mine > 0; ++i) {
        if (topk_ids[i] != expert) continue;
        const std::int64_t token = i / topk;
        const std::int64_t slot = i % topk;
        out.sorted_ids[next] = static_cast<std::int32_t>(token | (slot << 24));
        out.sorted_weights[next] = topk_weights[i];
        ++next;
        --mine;
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
    lay_out_segments<<<1, kLayoutThreads, 0, stream>>>(experts, block_m, out);
    FHMOE_GPU_CHECK_LAUNCH();
    place_expert_slots<<<grid, kSortThreads, 0, stream>>>(topk_ids, topk_weights, tokens, topk,
                                                          experts, out);
    FHMOE_GPU_CHECK_LAUNCH();
}

}  // namespace fhmoe::kernels::gpu
