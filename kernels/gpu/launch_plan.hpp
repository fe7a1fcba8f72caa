#pragma once

// The candidate's stage configs as tile geometries on this vendor's warps (host side of the
// device TUs).

#include "fhmoe/family/candidate.hpp"
#include "gpu/portability.hpp"
#include "gpu/stage_args.hpp"
#include "gpu/tile_geometry.hpp"

namespace fhmoe::kernels::gpu {

// Stage1: `waves` warps split the columns, `k_waves` such groups split K; two weight rows
// (gate, up) per column of h.
inline TileGeometry stage1_geometry(const family::Stage1Config& s1) {
    return make_tile_geometry(s1.tile_m, s1.tile_n, s1.tile_k, 2, s1.waves * kWarpSize, s1.k_waves);
}

inline TileGeometry stage2_geometry(const family::Stage2Config& s2) {
    return make_tile_geometry(s2.tile_m, s2.tile_n, s2.tile_k, 1, kStage2Threads, 1);
}

}  // namespace fhmoe::kernels::gpu
