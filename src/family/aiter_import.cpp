#include "fhmoe/family/aiter_import.hpp"

#include <array>
#include <set>

#include "fhmoe/error.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/family/name_grammar.hpp"
#include "name_tokens.hpp"

namespace fhmoe::family {
namespace {

using detail::numeric_suffix;
using detail::throw_name_error;

constexpr std::array<std::string_view, 3> kTypeTokens{"afp8", "wfp4", "bf16"};
constexpr std::size_t kTileTokenIndex = 5;
// aiter's runtime fallback tile for a stage1 tile_n / stage2 tile_k that does not divide
// inter_dim (spec 6.5).
constexpr int kAiterFallbackTile = 128;
// Both stages' _xcd{N} token: the same hint, ignored for the same reason.
constexpr std::string_view kXcdSwizzleIgnored =
    "XCD swizzle of AMD workgroup placement; our backends schedule tiles themselves";

struct ParsedHead {
    std::vector<std::string_view> tokens;
    detail::Tile tile;
};

ParsedHead parse_head(std::string_view name, std::string_view stage_token) {
    ParsedHead head{detail::split_name(name), {}};
    const auto& tokens = head.tokens;
    if (tokens[0] != "flydsl") throw_name_error(name, tokens[0], "expected 'flydsl'");
    if (tokens.size() < 2 || tokens[1] != stage_token) {
        throw_name_error(name, tokens.size() < 2 ? std::string_view{} : tokens[1],
                         "expected '" + std::string(stage_token) + "'");
    }
    for (std::size_t i = 0; i < kTypeTokens.size(); ++i) {
        if (i + 2 >= tokens.size() || tokens[i + 2] != kTypeTokens[i]) {
            throw_name_error(name, i + 2 < tokens.size() ? tokens[i + 2] : std::string_view{},
                             "expected '" + std::string(kTypeTokens[i]) +
                                 "': only aiter's afp8_wfp4_bf16 kernels are FHMoE kernels");
        }
    }
    if (kTileTokenIndex >= tokens.size()) {
        throw_name_error(name, "missing tile token t{TM}x{TN}x{TK}");
    }
    head.tile = detail::parse_tile_token(name, tokens[kTileTokenIndex]);
    return head;
}

// One token kind per name: "kw" and "w" count as different kinds.
void claim_kind(std::set<std::string>& kinds, std::string_view name, std::string_view token,
                const std::string& kind) {
    if (!kinds.insert(kind).second) throw_name_error(name, token, "duplicated " + kind + " token");
}

void note(std::vector<ImportNote>& notes, ImportNote::Kind kind, std::string_view token,
          std::string reason) {
    notes.push_back(ImportNote{kind, std::string(token), std::move(reason)});
}

// The tile aiter actually runs for a stage1 tile_n or stage2 tile_k (`what`) named in the tile
// token: the named one when it divides inter_dim, else aiter's fallback, noted as a remap.
int tile_aiter_runs(int named_tile, std::string_view what, const ShapeKey& shape,
                    std::string_view name, std::string_view tile_token,
                    std::vector<ImportNote>& notes) {
    if (shape.inter_dim % named_tile == 0) return named_tile;
    const std::string named = std::string(what) + " " + std::to_string(named_tile);
    if (shape.inter_dim % kAiterFallbackTile != 0) {
        throw_name_error(name, tile_token,
                         named + " does not divide inter_dim and aiter has no fallback for it");
    }
    const std::string fallback = std::to_string(kAiterFallbackTile);
    note(notes, ImportNote::Kind::remapped, tile_token,
         named + " does not divide inter_dim " + std::to_string(shape.inter_dim) + "; aiter runs " +
             std::string(what) + " " + fallback + ", so it maps to " + fallback);
    return kAiterFallbackTile;
}

Stage1Config import_stage1(std::string_view name, const ShapeKey& shape,
                           std::vector<ImportNote>& notes) {
    const ParsedHead head = parse_head(name, "moe1");
    Stage1Config config;
    config.tile_m = head.tile.m;
    config.tile_n = head.tile.n;
    config.tile_k = head.tile.k;
    config.gate_mode = GateMode::separated;  // aiter spells interleave; its absence is two streams
    std::set<std::string> kinds;
    for (std::size_t i = kTileTokenIndex + 1; i < head.tokens.size(); ++i) {
        const std::string_view token = head.tokens[i];
        if (auto kw_digits = numeric_suffix(token, "kw")) {
            claim_kind(kinds, name, token, "kw");
            config.k_waves = detail::parse_number(*kw_digits, 1, kMaxWaves, "kw", name, token);
        } else if (auto w_digits = numeric_suffix(token, "w")) {
            claim_kind(kinds, name, token, "w");
            config.waves = detail::parse_number(*w_digits, 1, kMaxWaves, "w", name, token);
            note(notes, ImportNote::Kind::remapped, token,
                 "aiter's waves_per_eu occupancy hint; here it is waves = " +
                     std::to_string(config.waves) + " workers per tile");
        } else if (numeric_suffix(token, "bnt")) {
            claim_kind(kinds, name, token, "bnt");
            note(notes, ImportNote::Kind::ignored, token,
                 "B-operand cache modifier hint; our backends have no such knob");
        } else if (numeric_suffix(token, "xcd")) {
            claim_kind(kinds, name, token, "xcd");
            note(notes, ImportNote::Kind::ignored, token, std::string(kXcdSwizzleIgnored));
        } else if (token == "gui") {
            claim_kind(kinds, name, token, "gui");
            config.gate_mode = GateMode::interleave;
        } else if (token == "fp8") {
            claim_kind(kinds, name, token, "fp8");
            config.fused_fp8_out = true;
        } else if (numeric_suffix(token, "kb")) {
            throw_name_error(name, token, "split-K (fp4 activations only) has no counterpart here");
        } else if (token == "go") {
            throw_name_error(name, token, "gate-only kernels are not valid for FHMoE");
        } else if (token == "fp4") {
            throw_name_error(name, token, "an fp4 stage1 output is not part of this family");
        } else {
            throw_name_error(name, token, "unknown aiter token");
        }
    }
    config.tile_n =
        tile_aiter_runs(config.tile_n, "tile_n", shape, name, head.tokens[kTileTokenIndex], notes);
    return config;
}

Stage2Config import_stage2(std::string_view name, const ShapeKey& shape, int block_m,
                           std::vector<ImportNote>& notes) {
    const ParsedHead head = parse_head(name, "moe2");
    Stage2Config config;
    config.tile_m = head.tile.m;
    config.tile_n = head.tile.n;
    config.tile_k = head.tile.k;
    std::set<std::string> kinds;
    for (std::size_t i = kTileTokenIndex + 1; i < head.tokens.size(); ++i) {
        const std::string_view token = head.tokens[i];
        if (token == "atomic" || token == "reduce") {
            claim_kind(kinds, name, token, "atomic|reduce");
            config.mode = token == "atomic" ? Stage2Mode::atomic : Stage2Mode::reduce;
        } else if (token == "persist") {
            claim_kind(kinds, name, token, "persist");
            config.persistent = true;
            note(notes, ImportNote::Kind::remapped, token,
                 "aiter overrides _persist for fp8 activations (it did not run persistent); "
                 "here it runs persistent as named");
        } else if (numeric_suffix(token, "bnt")) {
            claim_kind(kinds, name, token, "bnt");
            note(notes, ImportNote::Kind::ignored, token,
                 "aiter's mixed gemm2 builder deletes _bnt; no effect in our backends either");
        } else if (numeric_suffix(token, "xcd")) {
            claim_kind(kinds, name, token, "xcd");
            note(notes, ImportNote::Kind::ignored, token, std::string(kXcdSwizzleIgnored));
        } else if (auto digits = numeric_suffix(token, "sbm")) {
            claim_kind(kinds, name, token, "sbm");
            const int sort_block = detail::parse_number(*digits, 1, kMaxTileMN, "sbm", name, token);
            if (sort_block != block_m) {
                throw_name_error(name, token,
                                 "sort block " + std::to_string(sort_block) + " is not block_m " +
                                     std::to_string(block_m));
            }
        } else {
            throw_name_error(name, token, "unknown aiter token");
        }
    }
    if (!kinds.contains("atomic|reduce")) {
        throw_name_error(name, "missing mode token 'atomic' or 'reduce'");
    }
    config.tile_k =
        tile_aiter_runs(config.tile_k, "tile_k", shape, name, head.tokens[kTileTokenIndex], notes);
    return config;
}

}  // namespace

std::string ImportNote::to_string() const {
    return std::string(kind == Kind::ignored ? "ignored " : "remapped ") + token + ": " + reason;
}

ImportedCandidate import_aiter_kernel_names(std::string_view name1, std::string_view name2,
                                            const ShapeKey& shape, std::optional<int> block_m) {
    ImportedCandidate imported;
    Candidate& candidate = imported.candidate;
    candidate.stage1 = import_stage1(name1, shape, imported.notes);
    candidate.block_m = candidate.stage1.tile_m;
    if (block_m && *block_m != candidate.block_m) {
        throw ParseError("kernel name '" + std::string(name1) + "': stage1 tile_m " +
                         std::to_string(candidate.block_m) + " is not the row's block_m " +
                         std::to_string(*block_m));
    }
    candidate.stage2 = import_stage2(name2, shape, candidate.block_m, imported.notes);
    if (auto reason = why_candidate_illegal(shape, candidate)) {
        throw ParseError("aiter kernels '" + std::string(name1) + "', '" + std::string(name2) +
                         "' cannot run shape " + shape_key_string(shape) + ": " + *reason);
    }
    return imported;
}

}  // namespace fhmoe::family
