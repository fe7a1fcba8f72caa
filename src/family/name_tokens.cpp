#include "name_tokens.hpp"

#include <charconv>

#include "fhmoe/error.hpp"
#include "fhmoe/family/name_grammar.hpp"
#include "fhmoe/text_excerpt.hpp"

namespace fhmoe::family::detail {
namespace {

bool all_digits(std::string_view text) {
    if (text.empty()) return false;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

}  // namespace

std::vector<std::string_view> split_name(std::string_view name) {
    std::vector<std::string_view> tokens;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = name.find('_', start);
        if (end == std::string_view::npos) {
            tokens.push_back(name.substr(start));
            return tokens;
        }
        tokens.push_back(name.substr(start, end - start));
        start = end + 1;
    }
}

void throw_name_error(std::string_view name, std::string_view token, const std::string& reason) {
    throw ParseError("kernel name '" + excerpt(name) + "': token '" + excerpt(token) +
                     "': " + reason);
}

void throw_name_error(std::string_view name, const std::string& reason) {
    throw ParseError("kernel name '" + excerpt(name) + "': " + reason);
}

std::optional<std::string_view> numeric_suffix(std::string_view token, std::string_view prefix) {
    if (!token.starts_with(prefix)) return std::nullopt;
    const std::string_view rest = token.substr(prefix.size());
    if (!all_digits(rest)) return std::nullopt;
    return rest;
}

int parse_number(std::string_view digits, int minimum, int maximum, std::string_view what,
                 std::string_view name, std::string_view token) {
    const std::string label(what);
    if (!all_digits(digits)) {
        throw_name_error(name, token, label + " '" + excerpt(digits) + "' is not a number");
    }
    if (digits.size() > 1 && digits.front() == '0') {
        throw_name_error(name, token, label + " '" + excerpt(digits) + "' has a leading zero");
    }
    long long value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc{} || end != digits.data() + digits.size() || value > maximum) {
        throw_name_error(name, token,
                         label + " " + excerpt(digits) + " exceeds " + std::to_string(maximum));
    }
    if (value == 0) throw_name_error(name, token, label + " is zero");
    if (value < minimum) {
        throw_name_error(
            name, token,
            label + " " + std::string(digits) + " is below " + std::to_string(minimum));
    }
    return static_cast<int>(value);
}

Tile parse_tile_token(std::string_view name, std::string_view token) {
    if (!token.starts_with("t")) {
        throw_name_error(name, token, "expected the tile token t{TM}x{TN}x{TK}");
    }
    const std::string_view dims = token.substr(1);
    const std::size_t first_x = dims.find('x');
    const std::size_t second_x =
        first_x == std::string_view::npos ? first_x : dims.find('x', first_x + 1);
    if (second_x == std::string_view::npos || dims.find('x', second_x + 1) != dims.npos) {
        throw_name_error(name, token, "expected the tile token t{TM}x{TN}x{TK}");
    }
    Tile tile;
    tile.m = parse_number(dims.substr(0, first_x), 1, kMaxTileMN, "tile_m", name, token);
    tile.n = parse_number(dims.substr(first_x + 1, second_x - first_x - 1), 1, kMaxTileMN, "tile_n",
                          name, token);
    tile.k =
        parse_number(dims.substr(second_x + 1), kScaleBlockK, kMaxTileK, "tile_k", name, token);
    if (tile.k % kScaleBlockK != 0) {
        throw_name_error(
            name, token,
            "tile_k " + std::to_string(tile.k) + " is not a multiple of the 32-wide scale block");
    }
    return tile;
}

std::string format_tile_token(int m, int n, int k) {
    return "t" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

}  // namespace fhmoe::family::detail
