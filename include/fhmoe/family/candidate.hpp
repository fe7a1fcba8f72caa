#pragma once

// A candidate = (block_m, stage1 kernel config, stage2 kernel config). These structs are
// what every backend executes; the name grammar (name_grammar.hpp) is their text form, and
// every token of a name maps to one field here that changes what runs.

#include <cstdint>

#include "fhmoe/family/shape.hpp"
#include "fhmoe/record_fields.hpp"

namespace fhmoe::family {

enum class Stage2Mode : std::uint8_t {
    atomic,  // each slot's output accumulated into the output row
    reduce,  // each slot writes its own row; a reduction sums the topk slots
};

constexpr Stage2Mode last_enumerator(Stage2Mode) noexcept { return Stage2Mode::reduce; }

struct Stage1Config {
    int tile_m = 32;   // rows of sorted tokens per tile (== block_m)
    int tile_n = 64;   // output columns (of inter_dim) per tile
    int tile_k = 256;  // K (model_dim) per main-loop step
    int waves = 1;     // parallel workers per tile ("_w{W}"); CPU: threads per tile
    int k_waves = 1;   // intra-tile K split across waves, partial sums reduced ("_kw{KW}")
    GateMode gate_mode = GateMode::interleave;  // "_gui" / "_gus"
    bool fused_fp8_out = false;  // "_fp8": stage1 writes MXFP8 directly (no separate quant)
    // K split across workgroups ("_ks{KS}"): each tile's K range is cut into k_splits parts,
    // each summed by its own workgroup; the parts' sums are added in part order. 0 (no
    // token): the backend derives it (gpu: as many as keep the batch's tiles within one wave
    // of the device; cpu: none).
    int k_splits = 0;
    auto operator<=>(const Stage1Config&) const = default;
};

template <typename Visitor, RecordOf<Stage1Config> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("tile_m", r.tile_m);
    visit("tile_n", r.tile_n);
    visit("tile_k", r.tile_k);
    visit("waves", r.waves);
    visit("k_waves", r.k_waves);
    visit("gate_mode", r.gate_mode);
    visit("fused_fp8_out", r.fused_fp8_out);
    visit("k_splits", r.k_splits);
}
static_assert(lists_every_member<Stage1Config>());

struct Stage2Config {
    int tile_m = 32;                       // rows per tile (divides block_m)
    int tile_n = 128;                      // output columns (of model_dim) per tile
    int tile_k = 128;                      // K (inter_dim) per main-loop step
    Stage2Mode mode = Stage2Mode::atomic;  // "_atomic" / "_reduce"
    bool persistent = false;  // "_persist": a fixed pool of workers pulls tiles from a queue
    auto operator<=>(const Stage2Config&) const = default;
};

template <typename Visitor, RecordOf<Stage2Config> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("tile_m", r.tile_m);
    visit("tile_n", r.tile_n);
    visit("tile_k", r.tile_k);
    visit("mode", r.mode);
    visit("persistent", r.persistent);
}
static_assert(lists_every_member<Stage2Config>());

struct Candidate {
    int block_m = 32;  // sort granularity: tokens of one expert are padded to block_m rows
    Stage1Config stage1;
    Stage2Config stage2;
    auto operator<=>(const Candidate&) const = default;
};

template <typename Visitor, RecordOf<Candidate> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("block_m", r.block_m);
    visit("stage1", r.stage1);
    visit("stage2", r.stage2);
}
static_assert(lists_every_member<Candidate>());

}  // namespace fhmoe::family
