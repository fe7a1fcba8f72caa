#pragma once

// Lexing shared by our name grammar and the aiter importer: '_'-separated tokens, strict
// decimals (no sign, no leading zero, so a number has one spelling) and the t{M}x{N}x{K}
// tile token. Errors are fhmoe::ParseError "kernel name '<name>': token '<token>': <why>".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fhmoe::family::detail {

std::vector<std::string_view> split_name(std::string_view name);

[[noreturn]] void throw_name_error(std::string_view name, std::string_view token,
                                   const std::string& reason);
[[noreturn]] void throw_name_error(std::string_view name, const std::string& reason);

// The digits after `prefix` when `token` is exactly prefix + one or more digits.
std::optional<std::string_view> numeric_suffix(std::string_view token, std::string_view prefix);

// A strict decimal in [minimum, maximum]; errors name `what` and the token.
int parse_number(std::string_view digits, int minimum, int maximum, std::string_view what,
                 std::string_view name, std::string_view token);

struct Tile {
    int m = 0;
    int n = 0;
    int k = 0;
};

// "t{M}x{N}x{K}": M, N in [1, kMaxTileMN]; K a multiple of the 32-wide scale block in
// [32, kMaxTileK].
Tile parse_tile_token(std::string_view name, std::string_view token);

std::string format_tile_token(int m, int n, int k);

}  // namespace fhmoe::family::detail
