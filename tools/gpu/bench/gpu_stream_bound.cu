// gpu_stream_bound: what a decode step would cost if its kernels did nothing but read their
// weight bytes, chained as the op chains them (a one-workgroup launch standing in for the
// routing, then stage1's bytes, then stage2's), under CUDA graph replay with the sources
// rotated over copies so that no replay finds them in L2. It is the attainable floor of a
// three-launch op, beside the copy-bandwidth floor fhmoe_gpu_bench prints (never a test). Beside
// it, the floor of one persistent launch (one workgroup per multiprocessor reads its share of
// stage1's bytes, a grid-wide barrier, then its share of stage2's), with and without its share
// of stage2's bytes copied into shared memory while it reads stage1's: what a one-launch decode
// step could reach. NVIDIA only. Usage: gpu_stream_bound (the DSV4 I384 byte counts at 1, 4 and
// 16 tokens).

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

bool ok(cudaError_t error, const char* what) {
    if (error == cudaSuccess) return true;
    std::fprintf(stderr, "gpu_stream_bound: %s: %s\n", what, cudaGetErrorString(error));
    return false;
}

__global__ void routing_stand_in(unsigned* sink) {
    if (threadIdx.x == 0) sink[1] += 1;
}

// The thread's 16-byte chunks first, first + stride, ... below end, kInFlight loads
// outstanding (streaming, not kept in L1/L2), folded into one word that the kernels store only
// on an impossible value so the loads stay.
template <int kInFlight>
__device__ unsigned fold_chunks(const uint4* __restrict__ source, std::size_t first,
                                std::size_t end, std::size_t stride) {
    unsigned folded = 0;
    std::size_t i = first;
    for (; i + (kInFlight - 1) * stride < end; i += kInFlight * stride) {
        uint4 v[kInFlight];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) v[u] = __ldcs(source + i + u * stride);
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) folded ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < end; i += stride) {
        const uint4 v = __ldcs(source + i);
        folded ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    return folded;
}

// The chained kernels: grid-stride, four loads in flight per thread.
constexpr int kInFlight = 4;
constexpr int kThreads = 256;
constexpr int kBlocksPerMultiprocessor = 8;

__global__ void __launch_bounds__(kThreads)
    read_bytes(const uint4* __restrict__ source, std::size_t chunks, unsigned* sink) {
    const unsigned folded = fold_chunks<kInFlight>(
        source, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x, chunks,
        static_cast<std::size_t>(gridDim.x) * blockDim.x);
    if (folded == 0x12345678u) sink[0] = folded;
}

// One persistent workgroup per multiprocessor (all resident: the grid is the multiprocessor
// count at an occupancy of at least one). Each takes a contiguous share of stage1's and of
// stage2's bytes; with staged_chunks > 0 it first starts asynchronous copies of up to that
// many 16-byte chunks of its stage2 share into shared memory, reads its stage1 share, meets
// the others at a grid-wide barrier (stage2 needs all of stage1's output), then folds the copies
// and reads the rest. The barrier's counter only grows: each arrival's ticket says which
// replay's barrier it is, so replays need no reset.
constexpr int kOneLaunchThreads = 1024;

__device__ std::size_t smaller(std::size_t a, std::size_t b) { return a < b ? a : b; }
constexpr int kOneLaunchInFlight = 8;

// The workgroup's chunks [begin, end), block-stride.
__device__ unsigned fold_range(const uint4* __restrict__ source, std::size_t begin,
                               std::size_t end) {
    return fold_chunks<kOneLaunchInFlight>(source, begin + threadIdx.x, end, blockDim.x);
}

__global__ void __launch_bounds__(kOneLaunchThreads)
    one_launch_bytes(const uint4* __restrict__ stage1, std::size_t chunks1,
                     const uint4* __restrict__ stage2, std::size_t chunks2,
                     std::size_t staged_chunks, unsigned* barrier, unsigned* sink) {
    extern __shared__ uint4 staged[];
    const std::size_t share2 = (chunks2 + gridDim.x - 1) / gridDim.x;
    const std::size_t begin2 = smaller(chunks2, blockIdx.x * share2);
    const std::size_t end2 = smaller(chunks2, begin2 + share2);
    const std::size_t staged_here = smaller(end2 - begin2, staged_chunks);
    for (std::size_t i = threadIdx.x; i < staged_here; i += blockDim.x) {
        const auto target = static_cast<unsigned>(__cvta_generic_to_shared(staged + i));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(target),
                     "l"(stage2 + begin2 + i)
                     : "memory");
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    const std::size_t share1 = (chunks1 + gridDim.x - 1) / gridDim.x;
    const std::size_t begin1 = smaller(chunks1, blockIdx.x * share1);
    unsigned folded = fold_range(stage1, begin1, smaller(chunks1, begin1 + share1));
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned ticket = atomicAdd(barrier, 1u);
        const unsigned everyone = (ticket / gridDim.x + 1) * gridDim.x;
        while (static_cast<int>(*reinterpret_cast<volatile unsigned*>(barrier) - everyone) < 0) {
            __nanosleep(32);
        }
        __threadfence();
    }
    __syncthreads();
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();
    for (std::size_t i = threadIdx.x; i < staged_here; i += blockDim.x) {
        const uint4 v = staged[i];
        folded ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    folded ^= fold_range(stage2, begin2 + staged_here, end2);
    if (folded == 0x12345678u) sink[0] = folded;
}
constexpr std::size_t kOneLaunchStagedBytes = 200 * 1024;

// Bytes one DSV4 I384 decode step reads per stage (routed experts expected distinct among 384
// for tokens x 6 slots, plus the FP8 shared expert; codes and scales), as docs/performance.md
// derives them.
struct StepBytes {
    int tokens;
    double stage1_mb;
    double stage2_mb;
};

constexpr int kCopies = 4;
constexpr int kTimedRuns = 50;
constexpr int kWarmupRuns = 10;

}  // namespace

int main() {
    int multiprocessors = 0;
    if (!ok(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0),
            "device attribute")) {
        return 1;
    }
    const StepBytes steps[] = {{1, 23.2, 11.6}, {4, 73.8, 36.9}, {16, 252.8, 126.4}};
    unsigned* sink = nullptr;
    unsigned* barrier = nullptr;
    cudaStream_t stream = nullptr;
    if (!ok(cudaMalloc(&sink, 64), "sink") || !ok(cudaMemset(sink, 0, 64), "sink") ||
        !ok(cudaMalloc(&barrier, 64), "barrier") || !ok(cudaMemset(barrier, 0, 64), "barrier") ||
        !ok(cudaStreamCreate(&stream), "stream")) {
        return 1;
    }
    int resident = 0;
    if (!ok(cudaFuncSetAttribute(one_launch_bytes, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(kOneLaunchStagedBytes)),
            "shared memory") ||
        !ok(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, one_launch_bytes,
                                                          kOneLaunchThreads, kOneLaunchStagedBytes),
            "occupancy")) {
        return 1;
    }
    if (resident < 1) {
        std::fprintf(stderr, "gpu_stream_bound: the one-launch workgroup does not fit\n");
        return 1;
    }
    const unsigned blocks = static_cast<unsigned>(multiprocessors * kBlocksPerMultiprocessor);
    std::printf(
        "%d multiprocessors; us per graph replay (median of %d, sources rotated over %d "
        "copies)\n",
        multiprocessors, kTimedRuns, kCopies);
    std::printf(
        "tokens  s1_MB  s2_MB  routing  +stage1  +stage2  +both  stage1_TB/s  stage2_TB/s  "
        "one_launch  one_launch_staged  staged_MB\n");
    for (const StepBytes& step : steps) {
        const std::size_t chunks1 = static_cast<std::size_t>(step.stage1_mb * 1e6) / 16;
        const std::size_t chunks2 = static_cast<std::size_t>(step.stage2_mb * 1e6) / 16;
        std::vector<uint4*> stage1(kCopies), stage2(kCopies);
        for (int k = 0; k < kCopies; ++k) {
            if (!ok(cudaMalloc(&stage1[k], chunks1 * 16), "stage1 bytes") ||
                !ok(cudaMemset(stage1[k], k + 1, chunks1 * 16), "stage1 bytes") ||
                !ok(cudaMalloc(&stage2[k], chunks2 * 16), "stage2 bytes") ||
                !ok(cudaMemset(stage2[k], k + 7, chunks2 * 16), "stage2 bytes")) {
                return 1;
            }
        }
        const std::size_t staged_chunks = kOneLaunchStagedBytes / 16;
        double median_us[6] = {};
        // routing; +stage1; +stage2; +both; one launch; one launch with stage2 staged
        for (int variant = 0; variant < 6; ++variant) {
            std::vector<cudaGraphExec_t> graphs(kCopies);
            for (int k = 0; k < kCopies; ++k) {
                cudaGraph_t graph = nullptr;
                if (!ok(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "capture")) {
                    return 1;
                }
                if (variant < 4) routing_stand_in<<<1, 32, 0, stream>>>(sink);
                if (variant >= 4) {
                    const bool staged = variant == 5;
                    one_launch_bytes<<<static_cast<unsigned>(multiprocessors), kOneLaunchThreads,
                                       staged ? kOneLaunchStagedBytes : 0, stream>>>(
                        stage1[k], chunks1, stage2[k], chunks2, staged ? staged_chunks : 0, barrier,
                        sink);
                }
                if (variant == 1 || variant == 3) {
                    read_bytes<<<blocks, kThreads, 0, stream>>>(stage1[k], chunks1, sink);
                }
                if (variant == 2 || variant == 3) {
                    read_bytes<<<blocks, kThreads, 0, stream>>>(stage2[k], chunks2, sink);
                }
                if (!ok(cudaStreamEndCapture(stream, &graph), "capture") ||
                    !ok(cudaGraphInstantiate(&graphs[k], graph, 0), "instantiate") ||
                    !ok(cudaGraphDestroy(graph), "graph")) {
                    return 1;
                }
            }
            cudaEvent_t start = nullptr, stop = nullptr;
            if (!ok(cudaEventCreate(&start), "event") || !ok(cudaEventCreate(&stop), "event")) {
                return 1;
            }
            std::vector<float> us;
            for (int run = 0; run < kWarmupRuns + kTimedRuns; ++run) {
                float ms = 0.0f;
                if (!ok(cudaEventRecord(start, stream), "record") ||
                    !ok(cudaGraphLaunch(graphs[run % kCopies], stream), "replay") ||
                    !ok(cudaEventRecord(stop, stream), "record") ||
                    !ok(cudaEventSynchronize(stop), "sync") ||
                    !ok(cudaEventElapsedTime(&ms, start, stop), "elapsed")) {
                    return 1;
                }
                if (run >= kWarmupRuns) us.push_back(ms * 1000.0f);
            }
            std::sort(us.begin(), us.end());
            median_us[variant] = us[us.size() / 2];
            for (cudaGraphExec_t graph : graphs) cudaGraphExecDestroy(graph);
            cudaEventDestroy(start);
            cudaEventDestroy(stop);
        }
        const double staged_mb = std::min(
            step.stage2_mb, static_cast<double>(multiprocessors) * kOneLaunchStagedBytes / 1e6);
        std::printf(
            "%6d  %5.1f  %5.1f  %7.1f  %7.1f  %7.1f  %5.1f  %11.2f  %11.2f  %10.1f  %17.1f  "
            "%9.1f\n",
            step.tokens, step.stage1_mb, step.stage2_mb, median_us[0], median_us[1], median_us[2],
            median_us[3], step.stage1_mb / (median_us[1] - median_us[0]),
            step.stage2_mb / (median_us[2] - median_us[0]), median_us[4], median_us[5], staged_mb);
        for (int k = 0; k < kCopies; ++k) {
            cudaFree(stage1[k]);
            cudaFree(stage2[k]);
        }
    }
    return 0;
}
