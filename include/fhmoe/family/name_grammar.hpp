#pragma once

// The text form of a candidate's two kernels. Every token of a name sets one field of
// Stage1Config / Stage2Config and changes what runs, so a name never lies about its kernel
// (aiter's names do: spec section 10 item 9). Canonical form only, in this order:
//
//   fhmoe1_afp8_wfp4_bf16_t{TM}x{TN}x{TK}[_w{W}][_kw{KW}][_ks{KS}]_{gui|gus}[_fp8]
//   fhmoe2_afp8_wfp4_bf16_t{TM}x{TN}x{TK}_{atomic|reduce}[_persist]
//
// `_w` and `_kw` are omitted when 1 (writing `_w1` is rejected: it would be a second
// spelling of the same kernel). `_ks` is omitted when the backend derives stage1's K split
// (Stage1Config::k_splits 0); `_ks1` asks for no split. format(parse(name)) == name and
// parse(format(c)) == c.
// The grammar checks syntax and bounds; whether a config fits a shape is legality.hpp's job.

#include <string>
#include <string_view>

#include "fhmoe/family/candidate.hpp"

namespace fhmoe::family {

// Bounds of the numbers a name may carry. They reject nonsense (zero, overflow, a K tile
// that splits a 1x32 scale block), not configs a shape cannot run.
inline constexpr int kMaxTileMN = 4096;
inline constexpr int kMaxTileK = 8192;
inline constexpr int kScaleBlockK = 32;  // one e8m0 scale per 1x32 block along K
inline constexpr int kMaxWaves = 64;
inline constexpr int kMaxKSplits = 64;

std::string format_stage1_name(const Stage1Config& config);
std::string format_stage2_name(const Stage2Config& config);

// Throw fhmoe::ParseError naming the offending token (unknown, duplicated, out of order,
// default-valued, missing, or a number that is zero, too large or malformed).
Stage1Config parse_stage1_name(std::string_view name);
Stage2Config parse_stage2_name(std::string_view name);

}  // namespace fhmoe::family
