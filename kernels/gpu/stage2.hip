// Stage2 on the device: per tile of tile_m sorted rows x tile_n output columns, the down GEMM
// of the MXFP8 h rows over the expert's dequantized weights, times each row's routing weight,
// then the candidate's epilogue: `atomic` adds into the bf16 output with 32-bit
// compare-and-swap on column pairs (concurrent tiles of other experts hit the same token's
// row, in no fixed order, as serving's atomics do); `reduce` writes each slot's own bf16 row
// for the reduction kernel. `persistent` runs a fixed grid that takes tiles from a counter.

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares;
// nvcc declares them implicitly, hipcc only through it.
#include "gpu/portability.hpp"

#include "common/bf16.hpp"
#include "gpu/dynamic_shared_memory.hpp"
#include "gpu/stage_args.hpp"
#include "gpu/tile_gemm.hpp"

namespace fhmoe::kernels::gpu {
namespace {

__device__ void atomic_add_bf16_pair(std::uint16_t* even_address, float even, float odd) {
    auto* word = reinterpret_cast<unsigned int*>(even_address);
    unsigned int seen = *reinterpret_cast<volatile unsigned int*>(word);
    unsigned int assumed = 0;
    do {
        assumed = seen;
        const unsigned int low =
            encode_bf16(decode_bf16(static_cast<std::uint16_t>(assumed)) + even);
        const unsigned int high =
            encode_bf16(decode_bf16(static_cast<std::uint16_t>(assumed >> 16)) + odd);
        seen = atomicCAS(word, assumed, low | (high << 16));
    } while (seen != assumed);
}

__device__ void run_tile(const Stage2Args& args, std::int64_t tile, float* shared_floats) {
    const TileGeometry& g = args.geometry;
    const ShapeView& s = args.shape;
    const std::int64_t n_tiles = s.hidden / g.tile_n;
    const std::int64_t row0 = tile / n_tiles * g.tile_m;
    const std::int64_t column0 = tile % n_tiles * g.tile_n;
    const std::int64_t expert = args.sorted.block_experts[row0 / args.sorted.block_m];

    WeightView w;
    w.k = s.inter;
    if (expert == s.shared_expert) {
        w.codes = args.shared_w2;
        w.scales = args.shared_w2_scale;
        w.fp4 = false;
    } else {
        w.codes = args.w2_fp4 + expert * s.hidden * s.inter / 2;
        w.scales = args.w2_scale + expert * s.hidden * (s.inter / kMxBlockSize);
    }
    const ActivationView a{args.a2_codes, args.a2_scales, s.inter};
    float* staged = shared_floats;
    float* epilogue = shared_floats + g.staging_floats();
    const ThreadPlace place(g);
    const int threads = static_cast<int>(blockDim.x);

    for (int column_pass = 0; column_pass < g.column_passes; ++column_pass) {
        const std::int64_t pass_column0 = column0 + column_pass * g.columns_per_pass;
        const std::int64_t column = pass_column0 + place.column;
        const std::int64_t weight_row[1] = {column};
        for (int row_pass = 0; row_pass < g.row_passes; ++row_pass) {
            const std::int64_t pass_row0 = row0 + row_pass * g.rows_per_pass;
            const RowSource rows{args.sorted.sorted_ids + pass_row0, s.tokens, s.topk, true};
            if (!pass_has_rows(g, rows)) continue;
            Accumulators<1> acc;
            run_pass_k_loop<1>(acc, staged, g, place, a, rows, w, weight_row, 0, a.k);

            // One row of this thread's output: staged for the atomic pairs, or stored bf16.
            auto finish_row = [&](int j, float sum) {
                const int r = place.pass_row(g, j);
                const float value = sum * args.sorted.sorted_weights[pass_row0 + r];
                if (args.atomic) {
                    epilogue[r * g.columns_per_pass + place.column] = value;
                    return;
                }
                const std::int32_t entry = rows.entries[r];
                if (entry_token(entry) >= s.tokens) return;
                const std::int64_t slot_row = entry_slot_row(entry, s.topk);
                args.slot_out[slot_row * s.hidden + column] = encode_bf16(value);
            };
            // Guarded, not cut short: the loop must unroll so the accumulators stay in registers.
#pragma unroll
            for (int j = 0; j < kMaxRowsPerThread; ++j) {
                if (j < g.rows_per_thread) finish_row(j, acc.value[0][j]);
            }
            if (!args.atomic) continue;
            __syncthreads();
            const int pairs_per_row = g.columns_per_pass / 2;
            for (int q = static_cast<int>(threadIdx.x); q < g.rows_per_pass * pairs_per_row;
                 q += threads) {
                const int r = q / pairs_per_row;
                const int pair = q % pairs_per_row;
                const std::int64_t token = entry_token(rows.entries[r]);
                if (token >= s.tokens) continue;
                const float* values = epilogue + r * g.columns_per_pass + 2 * pair;
                atomic_add_bf16_pair(args.out_bf16 + token * s.hidden + pass_column0 + 2 * pair,
                                     values[0], values[1]);
            }
            __syncthreads();  // the next pass rewrites the epilogue tile
        }
    }
}

__global__ void __launch_bounds__(kStage2Threads) stage2_kernel(Stage2Args args) {
    extern __shared__ float shared_floats[];
    const std::int64_t tile = blockIdx.x;
    if (tile / (args.shape.hidden / args.geometry.tile_n) * args.geometry.tile_m >=
        *args.sorted.valid_rows) {
        return;
    }
    run_tile(args, tile, shared_floats);
}

__global__ void __launch_bounds__(kStage2Threads) stage2_persistent_kernel(Stage2Args args) {
    extern __shared__ float shared_floats[];
    __shared__ unsigned int taken;
    const std::int64_t tiles = static_cast<std::int64_t>(*args.sorted.valid_rows) /
                               args.geometry.tile_m * (args.shape.hidden / args.geometry.tile_n);
    for (;;) {
        if (threadIdx.x == 0) taken = atomicAdd(args.tile_counter, 1u);
        __syncthreads();
        const std::int64_t tile = taken;
        __syncthreads();  // everyone has read `taken` before thread 0 overwrites it
        if (tile >= tiles) return;
        run_tile(args, tile, shared_floats);
    }
}

}  // namespace

void launch_stage2(const Stage2Args& args, std::int64_t tiles, int workgroups, hipStream_t stream) {
    const int shared_bytes = args.geometry.shared_bytes();
    const auto threads = static_cast<unsigned>(args.geometry.threads());
    if (args.persistent) {
        allow_dynamic_shared_memory(&stage2_persistent_kernel, shared_bytes);
        FHMOE_GPU_CHECK(hipMemsetAsync(args.tile_counter, 0, sizeof(std::uint32_t), stream));
        stage2_persistent_kernel<<<static_cast<unsigned>(workgroups), threads,
                                   static_cast<std::size_t>(shared_bytes), stream>>>(args);
    } else {
        allow_dynamic_shared_memory(&stage2_kernel, shared_bytes);
        stage2_kernel<<<static_cast<unsigned>(tiles), threads,
                        static_cast<std::size_t>(shared_bytes), stream>>>(args);
    }
    FHMOE_GPU_CHECK_LAUNCH();
}

int stage2_workgroups_per_multiprocessor(const TileGeometry& geometry) {
    int blocks = 0;
    FHMOE_GPU_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, reinterpret_cast<const void*>(&stage2_persistent_kernel), geometry.threads(),
        static_cast<std::size_t>(geometry.shared_bytes())));
    return blocks > 0 ? blocks : 1;
}

}  // namespace fhmoe::kernels::gpu
