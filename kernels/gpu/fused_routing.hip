// Decode-size routing in one launch: workgroup 0 sorts the routing (moe_sorting's result:
// each expert's (token, slot) entries in token order, padded to block_m rows, padding rows
// carrying token = M and weight 0), every other workgroup quantizes x to MXFP8 in the mma
// layout (32 lanes per block) and zeroes the output for atomic accumulation. At one token the
// three-launch sort alone took 41 us; a decode step cannot afford a launch per phase.
//
// The sort is deterministic without atomics deciding an order: counts per expert are
// order-free sums, the padded offsets a workgroup prefix sum, and an entry's place among its
// expert's entries the number of earlier entries with the same expert (entries <= 1024). The
// sort is the launch's critical path (globaltimer stamps on the H200: x quantized 1.3-1.5 us
// after the launch, the sort done at 3.5 us for one DSV4 token and 5.8 us for 16), so on
// NVIDIA warps count those entries with match votes, and up to 32 entries one warp sorts alone.

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares;
// nvcc declares them implicitly, hipcc only through it.
#include "gpu/portability.hpp"

#include "common/bf16.hpp"
#include "common/mx_block.hpp"
#include "gpu/dependent_launch.hpp"
#include "gpu/lane_group_quant.hpp"
#include "gpu/matrix_args.hpp"

namespace fhmoe::kernels::gpu {
namespace {

constexpr int kRoutingThreads = 1024;

// Every sort below ends the same way: an expert's padded segment [first, first + padded) names
// it in each of its blocks and fills its rows past `count` with padding (token = M, weight 0),
// and entry i (token i / topk, slot i % topk) lands on its row.
__device__ void write_expert_segment(const FusedRoutingArgs& a, std::int32_t expert, int first,
                                     int count, int padded) {
    for (int row = first; row < first + padded; row += a.block_m) {
        a.block_experts[row / a.block_m] = expert;
    }
    for (int row = first + count; row < first + padded; ++row) {
        a.sorted_ids[row] = static_cast<std::int32_t>(a.tokens);
        a.sorted_weights[row] = 0.0f;
    }
}

__device__ void place_entry(const FusedRoutingArgs& a, int entry, int row) {
    const std::int64_t token = entry / a.topk;
    const std::int64_t slot = entry % a.topk;
    a.sorted_ids[row] = static_cast<std::int32_t>(token | (slot << 24));
    a.sorted_weights[row] = a.topk_weights[entry];
}

#if !defined(FHMOE_GPU_VENDOR_NVIDIA)
__device__ void sort_routing(const FusedRoutingArgs& a) {
    __shared__ std::int32_t ids[kFusedRoutingEntries];
    __shared__ std::int32_t first_row[kFusedRoutingExperts];
    __shared__ std::int32_t scan[kRoutingThreads];
    const int tid = static_cast<int>(threadIdx.x);
    const int entries = static_cast<int>(a.tokens * a.topk);
    const int experts = static_cast<int>(a.experts);
    for (int e = tid; e < experts; e += kRoutingThreads) first_row[e] = 0;
    for (int i = tid; i < entries; i += kRoutingThreads) ids[i] = a.topk_ids[i];
    __syncthreads();
    for (int i = tid; i < entries; i += kRoutingThreads) atomicAdd(&first_row[ids[i]], 1);
    __syncthreads();

    // Padded rows per expert -> first rows, a workgroup prefix sum over experts (<= 1024).
    const int count = tid < experts ? first_row[tid] : 0;
    const int padded = (count + a.block_m - 1) / a.block_m * a.block_m;
    scan[tid] = padded;
    __syncthreads();
    for (int offset = 1; offset < kRoutingThreads; offset *= 2) {
        const int add = tid >= offset ? scan[tid - offset] : 0;
        __syncthreads();
        scan[tid] += add;
        __syncthreads();
    }
    const int first = scan[tid] - padded;
    if (tid == kRoutingThreads - 1) *a.valid_rows = scan[tid];
    if (tid < experts) {
        first_row[tid] = first;
        write_expert_segment(a, tid, first, count, padded);
    }
    __syncthreads();

    for (int i = tid; i < entries; i += kRoutingThreads) {
        const std::int32_t expert = ids[i];
        int before = 0;
        for (int j = 0; j < i; ++j) before += ids[j] == expert ? 1 : 0;
        place_entry(a, i, first_row[expert] + before);
    }
}
#else
// The same sort by warps (NVIDIA): an entry's place among its expert's entries is the number
// of earlier lanes of its warp in its match vote plus its expert's entries in the earlier
// warps (per-warp counts in shared memory: at most 31 reads, where the scan above reads every
// earlier entry, up to 1023), and the experts' prefix sum is a shuffle scan per warp and one
// over the warp totals (three barriers, not twenty). At 16 DSV4 tokens (112 entries) the
// general sort ended 4.3 us after the quantization of x beside it.
__device__ void sort_routing(const FusedRoutingArgs& a) {
    constexpr unsigned kAll = 0xFFFFFFFFu;
    constexpr int kWarps = kRoutingThreads / 32;
    __shared__ std::int32_t first_row[kFusedRoutingExperts];
    __shared__ std::int32_t warp_totals[kWarps];
    __shared__ std::uint8_t warp_counts[kWarps][kFusedRoutingExperts];  // <= 32 each
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int entries = static_cast<int>(a.tokens * a.topk);
    const int experts = static_cast<int>(a.experts);
    const bool warp_has_entries = warp * 32 < entries;  // then so do the warps before it
    for (int e = tid; e < experts; e += kRoutingThreads) first_row[e] = 0;
    if (warp_has_entries) {
        for (int e = lane; e < experts; e += 32) warp_counts[warp][e] = 0;
    }
    __syncthreads();
    std::int32_t expert = -1;  // -1: no entry
    int before_in_warp = 0;
    if (warp_has_entries) {
        if (tid < entries) expert = a.topk_ids[tid];
        const unsigned same = __match_any_sync(kAll, expert);
        before_in_warp = __popc(same & ((1u << lane) - 1u));
        if (expert >= 0 && before_in_warp == 0) {
            warp_counts[warp][expert] = static_cast<std::uint8_t>(__popc(same));
            atomicAdd(&first_row[expert], __popc(same));
        }
    }
    __syncthreads();

    // Padded rows per expert -> first rows (experts <= 1024: one per thread).
    const int count = tid < experts ? first_row[tid] : 0;
    const int padded = (count + a.block_m - 1) / a.block_m * a.block_m;
    int inclusive = padded;
    for (int offset = 1; offset < 32; offset *= 2) {
        const int below = __shfl_up_sync(kAll, inclusive, offset);
        if (lane >= offset) inclusive += below;
    }
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    int before_warp = 0;
    for (int w = 0; w < warp; ++w) before_warp += warp_totals[w];
    const int first = before_warp + inclusive - padded;
    if (tid == kRoutingThreads - 1) *a.valid_rows = before_warp + inclusive;
    if (tid < experts) {
        first_row[tid] = first;
        write_expert_segment(a, tid, first, count, padded);
    }
    __syncthreads();

    if (expert < 0) return;
    int rank = before_in_warp;
    for (int w = 0; w < warp; ++w) rank += warp_counts[w][expert];
    place_entry(a, tid, first_row[expert] + rank);
}

// The same sort for at most 32 entries (DSV4: up to 4 tokens), by one warp's lanes, one entry
// each: the lanes of an expert find each other with a match vote, an entry's place among its
// expert's is the number of earlier lanes in its match, an expert's first row the padded rows
// of the smaller experts present. No workgroup barrier (the general sort's prefix sum over
// every expert takes twenty).
__device__ void sort_routing_by_lanes(const FusedRoutingArgs& a) {
    constexpr unsigned kAll = 0xFFFFFFFFu;
    const int lane = static_cast<int>(threadIdx.x);
    const int entries = static_cast<int>(a.tokens * a.topk);
    const bool real = lane < entries;
    const std::int32_t expert = real ? a.topk_ids[lane] : -1;  // -1: no entry
    const unsigned same = __match_any_sync(kAll, expert);
    const int count = __popc(same);
    const int before = __popc(same & ((1u << lane) - 1u));
    const bool leader = real && before == 0;
    const int padded = leader ? (count + a.block_m - 1) / a.block_m * a.block_m : 0;
    int first = 0;
    int valid = 0;
    for (int j = 0; j < 32; ++j) {
        const std::int32_t other = __shfl_sync(kAll, expert, j);
        const int rows = __shfl_sync(kAll, padded, j);  // 0 unless lane j leads its expert
        if (other < expert) first += rows;
        valid += rows;
    }
    if (lane == 0) *a.valid_rows = valid;
    if (!real) return;
    place_entry(a, lane, first + before);
    if (leader) write_expert_segment(a, expert, first, count, padded);
}
#endif

// One 32-lane group per x block: the group quantizes it, stores it in the mma layout and,
// for atomic accumulation, zeroes the output elements of the same columns.
__device__ void quantize_x(const FusedRoutingArgs& a, std::int64_t block, int lane) {
    const std::int64_t blocks = a.tokens * a.hidden / kMxBlockSize;
    if (block >= blocks) return;  // the whole group leaves together
    const std::int64_t first = block * kMxBlockSize;
    std::uint8_t scale = 0;
    const std::uint8_t code = quantize_mx_fp8_by_lanes(decode_bf16(a.x_bf16[first + lane]), scale);
    const std::int64_t per_row = a.hidden / kMxBlockSize;
    a.a1[mma_code_offset(block / per_row, block % per_row, lane, a.hidden)] = code;
    if (lane == 0) a.a1_scales[block] = mx_scale_factor_bf16(scale);
    if (a.a1_values != nullptr) {
        a.a1_values[activation_bf16_index(block / per_row, block % per_row, lane, a.hidden)] =
            mx_fp8_value_as_bf16(code, scale);
    }
    if (a.out_bf16 != nullptr) a.out_bf16[first + lane] = 0;
}

__global__ void __launch_bounds__(kRoutingThreads) fused_routing_kernel(FusedRoutingArgs args) {
    // Stage1 may launch now: it waits for this kernel before reading the routing or x.
    allow_next_kernel();
    if (blockIdx.x == 0) {
#if defined(FHMOE_GPU_VENDOR_NVIDIA)
        if (args.tokens * args.topk <= 32) {
            if (threadIdx.x < 32) sort_routing_by_lanes(args);
            return;
        }
#endif
        sort_routing(args);
        return;
    }
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const std::int64_t group =
        static_cast<std::int64_t>(blockIdx.x - 1) * (kRoutingThreads / 32) + threadIdx.x / 32;
    quantize_x(args, group, lane);
}

}  // namespace

void launch_fused_routing(const FusedRoutingArgs& args, hipStream_t stream) {
    const std::int64_t blocks = args.tokens * args.hidden / kMxBlockSize;
    const std::int64_t groups_per_workgroup = kRoutingThreads / 32;
    const auto grid =
        static_cast<unsigned>(1 + (blocks + groups_per_workgroup - 1) / groups_per_workgroup);
    fused_routing_kernel<<<grid, kRoutingThreads, 0, stream>>>(args);
    FHMOE_GPU_CHECK_LAUNCH();
}

}  // namespace fhmoe::kernels::gpu
