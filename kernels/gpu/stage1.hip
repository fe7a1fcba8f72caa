// Stage1 on the device: per tile of tile_m sorted rows x tile_n columns of h, the gate/up
// GEMM over the expert's dequantized weights (MXFP4 routed, FP8 for the shared expert), then
// h = SiLU(gate) * up, stored as bf16 or, with the fused epilogue, quantized to MXFP8 by the
// workgroup itself (1x32 blocks of one row, staged in shared memory).

// First: kernels/common uses the device intrinsics (bit casts) that the runtime header declares;
// nvcc declares them implicitly, hipcc only through it.
#include "gpu/portability.hpp"

#include <algorithm>

#include "common/bf16.hpp"
#include "common/mx_block.hpp"
#include "common/portable_silu.hpp"
#include "gpu/dynamic_shared_memory.hpp"
#include "gpu/stage_args.hpp"
#include "gpu/tile_gemm.hpp"

namespace fhmoe::kernels::gpu {
namespace {

__global__ void __launch_bounds__(kStage1MaxThreads) stage1_kernel(Stage1Args args) {
    extern __shared__ float shared_floats[];
    const TileGeometry& g = args.geometry;
    const ShapeView& s = args.shape;
    const std::int64_t n_tiles = s.inter / g.tile_n;
    const std::int64_t tile = blockIdx.x;
    const int split = static_cast<int>(blockIdx.y);
    // Whole K steps per split: the derived count divides them, a candidate's need not.
    const std::int64_t k_steps = s.hidden / g.tile_k;
    const std::int64_t k_begin = split * k_steps / args.k_splits * g.tile_k;
    const std::int64_t k_end = (split + 1) * k_steps / args.k_splits * g.tile_k;
    const std::int64_t row0 = tile / n_tiles * g.tile_m;
    if (row0 >= *args.sorted.valid_rows) return;
    const std::int64_t column0 = tile % n_tiles * g.tile_n;
    const std::int64_t expert = args.sorted.block_experts[row0 / args.sorted.block_m];

    WeightView w;
    w.k = s.hidden;
    if (expert == s.shared_expert) {
        w.codes = args.shared_w1;
        w.scales = args.shared_w1_scale;
        w.fp4 = false;
    } else {
        w.codes = args.w1_fp4 + expert * 2 * s.inter * s.hidden / 2;
        w.scales = args.w1_scale + expert * 2 * s.inter * (s.hidden / kMxBlockSize);
    }
    const ActivationView a{args.a1_codes, args.a1_scales, s.hidden};
    float* staged = shared_floats;
    float* epilogue = shared_floats + g.staging_floats();
    const ThreadPlace place(g);
    const int threads = static_cast<int>(blockDim.x);

    for (int column_pass = 0; column_pass < g.column_passes; ++column_pass) {
        const std::int64_t pass_column0 = column0 + column_pass * g.columns_per_pass;
        const std::int64_t column = pass_column0 + place.column;
        const std::int64_t weight_row[2] = {args.interleaved ? 2 * column : column,
                                            args.interleaved ? 2 * column + 1 : s.inter + column};
        for (int row_pass = 0; row_pass < g.row_passes; ++row_pass) {
            const RowSource rows{args.sorted.sorted_ids + row0 + row_pass * g.rows_per_pass,
                                 s.tokens, s.topk, false};
            if (!pass_has_rows(g, rows)) continue;
            Accumulators<2> acc;
            run_pass_k_loop<2>(acc, staged, g, place, a, rows, w, weight_row, k_begin, k_end);

            if (args.k_splits > 1) {
                // This split's partial sums of the real rows; finish_split_rows adds the splits
                // in order and applies the epilogue.
                if (place.k_group == 0) {
#pragma unroll
                    for (int j = 0; j < kMaxRowsPerThread; ++j) {
                        if (j >= g.rows_per_thread) continue;
                        const int r = place.pass_row(g, j);
                        if (entry_token(rows.entries[r]) >= s.tokens) continue;
                        const std::int64_t sorted_row = row0 + row_pass * g.rows_per_pass + r;
                        if (sorted_row >= args.partial_rows) continue;  // bounded on the host
                        float* out =
                            args.partials +
                            ((split * args.partial_rows + sorted_row) * s.inter + column) * 2;
                        out[0] = acc.value[0][j];
                        out[1] = acc.value[1][j];
                    }
                }
                continue;
            }

            // One row of this thread's h: staged for the fused quantization, or stored bf16.
            auto finish_row = [&](int j, float gate, float up) {
                const int r = place.pass_row(g, j);
                const float h = portable_silu(gate) * up;
                if (args.fused_fp8_out) {
                    epilogue[r * g.columns_per_pass + place.column] = h;
                    return;
                }
                const std::int32_t entry = rows.entries[r];
                if (entry_token(entry) >= s.tokens) return;
                const std::int64_t a2_row = entry_slot_row(entry, s.topk);
                args.a2_bf16[a2_row * s.inter + column] = encode_bf16(h);
            };
            if (place.k_group == 0) {
                // Guarded, not cut short: the loop must unroll so the accumulators stay in
                // registers.
#pragma unroll
                for (int j = 0; j < kMaxRowsPerThread; ++j) {
                    if (j < g.rows_per_thread) finish_row(j, acc.value[0][j], acc.value[1][j]);
                }
            }
            if (!args.fused_fp8_out) continue;
            __syncthreads();
            const int blocks_per_row = g.columns_per_pass / kMxBlockSize;
            for (int q = static_cast<int>(threadIdx.x); q < g.rows_per_pass * blocks_per_row;
                 q += threads) {
                const int r = q / blocks_per_row;
                const int block = q % blocks_per_row;
                const std::int32_t entry = rows.entries[r];
                if (entry_token(entry) >= s.tokens) continue;
                const std::int64_t a2_row = entry_slot_row(entry, s.topk);
                const std::int64_t first = pass_column0 + block * kMxBlockSize;
                args.a2_scales[a2_row * (s.inter / kMxBlockSize) + first / kMxBlockSize] =
                    quantize_mx_block_fp8(epilogue + r * g.columns_per_pass + block * kMxBlockSize,
                                          args.a2_codes + a2_row * s.inter + first);
            }
            __syncthreads();  // the next pass rewrites the epilogue tile
        }
    }
}

// One thread per (sorted row, 1x32 block of h): the K splits' partial sums added in split
// order, then the epilogue stage1_kernel applies without a split (SiLU(gate) * up, stored as
// bf16 or quantized to MXFP8 block by block).
__global__ void finish_split_rows(Stage1Args args) {
    const ShapeView& s = args.shape;
    const std::int64_t blocks_per_row = s.inter / kMxBlockSize;
    const std::int64_t item = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t sorted_row = item / blocks_per_row;
    const std::int64_t block = item % blocks_per_row;
    if (sorted_row >= *args.sorted.valid_rows || sorted_row >= args.partial_rows) return;
    const std::int32_t entry = args.sorted.sorted_ids[sorted_row];
    if (entry_token(entry) >= s.tokens) return;
    const std::int64_t a2_row = entry_slot_row(entry, s.topk);
    float h[kMxBlockSize];
    for (int i = 0; i < kMxBlockSize; ++i) {
        const std::int64_t column = block * kMxBlockSize + i;
        float gate = 0.0f;
        float up = 0.0f;
        for (int split = 0; split < args.k_splits; ++split) {
            const float* in =
                args.partials + ((split * args.partial_rows + sorted_row) * s.inter + column) * 2;
            gate += in[0];
            up += in[1];
        }
        h[i] = portable_silu(gate) * up;
    }
    if (args.fused_fp8_out) {
        args.a2_scales[a2_row * blocks_per_row + block] =
            quantize_mx_block_fp8(h, args.a2_codes + a2_row * s.inter + block * kMxBlockSize);
        return;
    }
    for (int i = 0; i < kMxBlockSize; ++i) {
        args.a2_bf16[a2_row * s.inter + block * kMxBlockSize + i] = encode_bf16(h[i]);
    }
}

}  // namespace

int stage1_k_splits(const TileGeometry& g, std::int64_t active_tiles, std::int64_t k,
                    int multiprocessors) {
    const std::int64_t steps = k / g.tile_k;
    if (active_tiles <= 0 || steps <= 1) return 1;
    std::int64_t splits = std::min<std::int64_t>(steps, 2 * multiprocessors / active_tiles);
    while (splits > 1 && steps % splits != 0) --splits;
    return static_cast<int>(std::max<std::int64_t>(1, splits));
}

void launch_stage1(const Stage1Args& args, std::int64_t tiles, hipStream_t stream) {
    const int shared_bytes = args.geometry.shared_bytes();
    allow_dynamic_shared_memory(&stage1_kernel, shared_bytes);
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(args.k_splits));
    stage1_kernel<<<grid, static_cast<unsigned>(args.geometry.threads()),
                    static_cast<std::size_t>(shared_bytes), stream>>>(args);
    FHMOE_GPU_CHECK_LAUNCH();
    if (args.k_splits > 1) {
        constexpr int threads = 256;
        const std::int64_t items = args.partial_rows * (args.shape.inter / kMxBlockSize);
        finish_split_rows<<<static_cast<unsigned>((items + threads - 1) / threads), threads, 0,
                            stream>>>(args);
        FHMOE_GPU_CHECK_LAUNCH();
    }
}

}  // namespace fhmoe::kernels::gpu
