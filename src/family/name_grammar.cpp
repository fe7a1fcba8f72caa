#include "fhmoe/family/name_grammar.hpp"

#include <array>
#include <string>

#include "fhmoe/error.hpp"
#include "name_tokens.hpp"

namespace fhmoe::family {
namespace {

using detail::throw_name_error;

constexpr std::array<std::string_view, 3> kTypeTokens{"afp8", "wfp4", "bf16"};
constexpr std::string_view kStage1Prefix = "fhmoe1";
constexpr std::string_view kStage2Prefix = "fhmoe2";
constexpr std::size_t kTileTokenIndex = 4;

struct ParsedHead {
    std::vector<std::string_view> tokens;
    detail::Tile tile;
};

// Checks the fixed head "<prefix>_afp8_wfp4_bf16_t.." of either stage's name.
ParsedHead parse_head(std::string_view name, std::string_view prefix) {
    ParsedHead head{detail::split_name(name), {}};
    const auto& tokens = head.tokens;
    if (tokens[0] != prefix) {
        throw_name_error(name, tokens[0], "expected '" + std::string(prefix) + "'");
    }
    for (std::size_t i = 0; i < kTypeTokens.size(); ++i) {
        if (i + 1 >= tokens.size()) {
            throw_name_error(name, "missing token '" + std::string(kTypeTokens[i]) + "'");
        }
        if (tokens[i + 1] != kTypeTokens[i]) {
            throw_name_error(name, tokens[i + 1],
                             "expected '" + std::string(kTypeTokens[i]) +
                                 "' (the family is MXFP8 activations x MXFP4 weights -> bf16)");
        }
    }
    if (kTileTokenIndex >= tokens.size()) {
        throw_name_error(name, "missing tile token t{TM}x{TN}x{TK}");
    }
    head.tile = detail::parse_tile_token(name, tokens[kTileTokenIndex]);
    return head;
}

// Walks the optional/required tokens after the tile. classify(token) returns the token's
// slot in canonical order (or -1 for an unknown token) and applies it; each slot may appear
// once and slots must ascend, so every config has exactly one spelling.
template <std::size_t Slots, typename Classify>
std::array<bool, Slots> walk_suffix(std::string_view name,
                                    const std::vector<std::string_view>& tokens,
                                    const std::array<std::string_view, Slots>& slot_names,
                                    Classify classify) {
    std::array<bool, Slots> seen{};
    int last_slot = -1;
    for (std::size_t i = kTileTokenIndex + 1; i < tokens.size(); ++i) {
        const std::string_view token = tokens[i];
        if (token.empty()) throw_name_error(name, "empty token (doubled or trailing '_')");
        const int slot = classify(token);
        if (slot < 0) throw_name_error(name, token, "unknown token");
        const auto index = static_cast<std::size_t>(slot);
        if (seen[index]) {
            throw_name_error(name, token,
                             "duplicated " + std::string(slot_names[index]) + " token");
        }
        if (slot < last_slot) {
            std::string order;
            for (std::string_view slot_name : slot_names) {
                order += order.empty() ? "" : ", ";
                order += slot_name;
            }
            throw_name_error(name, token, "out of canonical order (" + order + ")");
        }
        seen[index] = true;
        last_slot = slot;
    }
    return seen;
}

// "_w{N}" / "_kw{N}": absent means 1, so the value 1 has no spelling of its own.
int parse_multiplier(std::string_view name, std::string_view token, std::string_view digits,
                     std::string_view what) {
    if (digits == "1") {
        throw_name_error(name, token, std::string(what) + " 1 is the default: omit the token");
    }
    return detail::parse_number(digits, 2, kMaxWaves, what, name, token);
}

void check_tile(bool ok, const char* what) {
    FHMOE_CHECK(ok, std::string("cannot name a config with this ") + what);
}

// "<prefix>_afp8_wfp4_bf16_t{M}x{N}x{K}" for the tile that Stage1Config and Stage2Config
// share, after checking it is in the bounds the parser accepts.
template <typename StageConfig>
std::string format_head(std::string_view prefix, const StageConfig& c) {
    check_tile(c.tile_m >= 1 && c.tile_m <= kMaxTileMN, "tile_m");
    check_tile(c.tile_n >= 1 && c.tile_n <= kMaxTileMN, "tile_n");
    check_tile(c.tile_k >= kScaleBlockK && c.tile_k <= kMaxTileK && c.tile_k % kScaleBlockK == 0,
               "tile_k");
    return std::string(prefix) + "_afp8_wfp4_bf16_" +
           detail::format_tile_token(c.tile_m, c.tile_n, c.tile_k);
}

}  // namespace

std::string format_stage1_name(const Stage1Config& c) {
    std::string name = format_head(kStage1Prefix, c);
    check_tile(c.waves >= 1 && c.waves <= kMaxWaves, "waves");
    check_tile(c.k_waves >= 1 && c.k_waves <= kMaxWaves, "k_waves");
    if (c.waves != 1) name += "_w" + std::to_string(c.waves);
    if (c.k_waves != 1) name += "_kw" + std::to_string(c.k_waves);
    check_tile(c.k_splits >= 0 && c.k_splits <= kMaxKSplits, "k_splits");
    if (c.k_splits != 0) name += "_ks" + std::to_string(c.k_splits);
    name += c.gate_mode == GateMode::interleave ? "_gui" : "_gus";
    if (c.fused_fp8_out) name += "_fp8";
    return name;
}

std::string format_stage2_name(const Stage2Config& c) {
    std::string name = format_head(kStage2Prefix, c);
    name += c.mode == Stage2Mode::atomic ? "_atomic" : "_reduce";
    if (c.persistent) name += "_persist";
    return name;
}

Stage1Config parse_stage1_name(std::string_view name) {
    const ParsedHead head = parse_head(name, kStage1Prefix);
    Stage1Config config;
    config.tile_m = head.tile.m;
    config.tile_n = head.tile.n;
    config.tile_k = head.tile.k;
    enum Slot { waves, k_waves, k_splits, gate, fused };
    const auto seen = walk_suffix<5>(
        name, head.tokens, {"w{W}", "kw{KW}", "ks{KS}", "gui|gus", "fp8"},
        [&](std::string_view token) -> int {
            if (token == "gui" || token == "gus") {
                config.gate_mode = token == "gui" ? GateMode::interleave : GateMode::separated;
                return gate;
            }
            if (token == "fp8") {
                config.fused_fp8_out = true;
                return fused;
            }
            if (auto digits = detail::numeric_suffix(token, "ks")) {
                // No default to omit: without the token the backend derives the split.
                config.k_splits =
                    detail::parse_number(*digits, 1, kMaxKSplits, "k_splits", name, token);
                return k_splits;
            }
            if (auto digits = detail::numeric_suffix(token, "kw")) {
                config.k_waves = parse_multiplier(name, token, *digits, "k_waves");
                return k_waves;
            }
            if (auto digits = detail::numeric_suffix(token, "w")) {
                config.waves = parse_multiplier(name, token, *digits, "waves");
                return waves;
            }
            return -1;
        });
    if (!seen[gate]) throw_name_error(name, "missing gate mode token 'gui' or 'gus'");
    return config;
}

Stage2Config parse_stage2_name(std::string_view name) {
    const ParsedHead head = parse_head(name, kStage2Prefix);
    Stage2Config config;
    config.tile_m = head.tile.m;
    config.tile_n = head.tile.n;
    config.tile_k = head.tile.k;
    enum Slot { mode, persist };
    const auto seen = walk_suffix<2>(
        name, head.tokens, {"atomic|reduce", "persist"}, [&](std::string_view token) -> int {
            if (token == "atomic" || token == "reduce") {
                config.mode = token == "atomic" ? Stage2Mode::atomic : Stage2Mode::reduce;
                return mode;
            }
            if (token == "persist") {
                config.persistent = true;
                return persist;
            }
            return -1;
        });
    if (!seen[mode]) throw_name_error(name, "missing mode token 'atomic' or 'reduce'");
    return config;
}

}  // namespace fhmoe::family
