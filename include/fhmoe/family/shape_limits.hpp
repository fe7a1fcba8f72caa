#pragma once

// The largest shape the kernels can run, in one place: the kernels refuse a problem outside
// these bounds, and the untuned CSV reader refuses such a row up front, so a typo (a token of
// 1e12) is a bad-input error naming its line before any worker starts, not a failure at data
// generation after the rest of the run has been measured.

#include <cstdint>
#include <optional>
#include <string>

#include "fhmoe/family/shape.hpp"

namespace fhmoe::family {

// moe_sorting packs a sorted row's token in 24 bits and its slot in 8; the other bounds keep
// every element count of a problem inside int64.
inline constexpr std::int64_t kMaxShapeTokens = (std::int64_t{1} << 24) - 1;
inline constexpr std::int64_t kMaxShapeTopk = 256;
inline constexpr std::int64_t kMaxShapeDim = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxShapeExperts = std::int64_t{1} << 16;

// One field of a shape outside what the kernels can run: the CSV column and why.
struct ShapeLimitViolation {
    std::string field;
    std::string reason;
};

// The first field of `shape` above the kernels' bounds, or none. (Lower bounds and the
// family's other rules are checked where the key is validated: key_rules, legality.)
std::optional<ShapeLimitViolation> shape_limit_violation(const ShapeKey& shape);

}  // namespace fhmoe::family
