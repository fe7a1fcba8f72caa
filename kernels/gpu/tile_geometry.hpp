#pragma once

// How one GEMM tile of a stage is spread over a workgroup, computed once on the host (to
// validate, size shared memory and launch) and read by the kernel. This is where the
// candidate's fields become the shape of what runs:
//
//   tile_m x tile_n   the block's output tile (rows of sorted tokens x output columns) and so
//                     the grid; tile_n over the threads of one K group decides how many
//                     columns a pass covers (columns_per_pass) and how many row groups share
//                     them (row_splits); tile_m over that decides the row passes;
//   tile_k            the K step: each step stages tile_m's rows of the step's activations in
//                     shared memory (rows_per_pass x tile_k floats) between two barriers;
//   waves             warps (wavefronts) per K group: the threads that split the columns;
//   k_waves           K groups: each sums its own slice of every K step into its own
//                     accumulators; the groups' partial sums are reduced, in group order,
//                     through shared memory before the epilogue.
//
// A thread holds kMaxRowsPerThread rows x weight_rows accumulators per pass; a tile larger
// than the workgroup's registers runs as several passes over K instead of spilling.

#include "common/host_device.hpp"

namespace fhmoe::kernels::gpu {

inline constexpr int kMaxRowsPerThread = 8;

struct TileGeometry {
    int tile_m = 0;
    int tile_n = 0;
    int tile_k = 0;
    int weight_rows = 1;       // weight rows per output column: 2 (gate, up) or 1
    int threads_n = 0;         // threads of one K group
    int k_groups = 1;          // K groups (stage1's k_waves)
    int columns_per_pass = 0;  // min(tile_n, threads_n)
    int row_splits = 0;        // threads_n / columns_per_pass
    int rows_per_thread = 0;   // per pass
    int rows_per_pass = 0;     // rows_per_thread * row_splits
    int column_passes = 0;     // tile_n / columns_per_pass
    int row_passes = 0;        // tile_m / rows_per_pass
    int k_slice = 0;           // tile_k / k_groups

    FHMOE_HOST_DEVICE int threads() const { return threads_n * k_groups; }

    // Floats of dynamic shared memory: the K step's activations, or (after the K loop) the K
    // groups' partial sums, whichever is larger; plus the pass's epilogue tile.
    FHMOE_HOST_DEVICE int staging_floats() const {
        const int activations = rows_per_pass * tile_k;
        const int partials =
            k_groups > 1 ? k_groups * kMaxRowsPerThread * threads_n * weight_rows : 0;
        return activations > partials ? activations : partials;
    }
    FHMOE_HOST_DEVICE int epilogue_floats() const { return rows_per_pass * columns_per_pass; }
    FHMOE_HOST_DEVICE int shared_bytes() const {
        return (staging_floats() + epilogue_floats()) * static_cast<int>(sizeof(float));
    }
};

// The geometry of a tile_m x tile_n x tile_k tile on threads_n x k_groups threads; fields
// are 0 when the tile cannot be spread that way (the caller reports why).
inline TileGeometry make_tile_geometry(int tile_m, int tile_n, int tile_k, int weight_rows,
                                       int threads_n, int k_groups) {
    TileGeometry g;
    g.tile_m = tile_m;
    g.tile_n = tile_n;
    g.tile_k = tile_k;
    g.weight_rows = weight_rows;
    g.threads_n = threads_n;
    g.k_groups = k_groups;
    g.columns_per_pass = tile_n < threads_n ? tile_n : threads_n;
    if (g.columns_per_pass <= 0 || tile_n % g.columns_per_pass != 0 ||
        threads_n % g.columns_per_pass != 0) {
        return g;
    }
    g.row_splits = threads_n / g.columns_per_pass;
    if (tile_m % g.row_splits != 0) return g;
    const int rows_each = tile_m / g.row_splits;
    g.rows_per_thread = rows_each < kMaxRowsPerThread ? rows_each : kMaxRowsPerThread;
    if (rows_each % g.rows_per_thread != 0) return g;
    g.rows_per_pass = g.rows_per_thread * g.row_splits;
    g.column_passes = tile_n / g.columns_per_pass;
    g.row_passes = tile_m / g.rows_per_pass;
    g.k_slice = k_groups > 0 ? tile_k / k_groups : 0;
    return g;
}

inline bool is_complete(const TileGeometry& g) { return g.row_passes > 0 && g.k_slice > 0; }

}  // namespace fhmoe::kernels::gpu
