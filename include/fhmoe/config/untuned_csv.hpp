#pragma once

// The untuned CSV: the shapes to tune. Its columns are the full serving key — token,
// model_dim, inter_dim, expert, topk, shared_expert_id, act_type, dtype, q_dtype_a,
// q_dtype_w, q_type, use_g1u1, doweight_stage1, hidden_pad, intermediate_pad, gate_mode —
// with gfx and cu_num optional (both or neither; when absent, the tuner's device fills
// them). aiter's untuned header lacks shared_expert_id, the pads and gate_mode, so shapes
// differing only in those collide (its weakness 10.1); here they are distinct shapes.
//
// Validation is that of the tuned CSV's key columns (see tuned_csv.hpp), except that the
// token may be any positive count: it is the M the op runs with, padded only for lookup.
// Every row must also be inside the kernels' bounds (family/shape_limits.hpp), and a file
// with a header but no rows is an error: both are found before any measurement.
//
// Duplicates:
//  - the same row twice (same device columns and same raw key) is an InputError naming
//    both lines: it is a copy-paste slip, and aiter silently dropping it hides real typos;
//  - two raw tokens with the same lookup token (3 and 4 both look up token 4) share one
//    tuned row, so tuning both would only let the later write win. They are merged: the
//    first line is kept, and a warning names both lines (serving traces list such tokens
//    legitimately, so this is not an error).

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/family/shape.hpp"

namespace fhmoe::config {

inline constexpr auto kUntunedShapeColumns = family::kShapeKeyColumns;
inline constexpr auto kUntunedDeviceColumns = family::kDeviceKeyColumns;

struct UntunedShape {
    std::optional<family::DeviceKey> device;  // set iff the file has gfx/cu_num columns
    family::ShapeKey shape;                   // raw token, as written
    std::size_t line = 0;
};

struct UntunedTable {
    std::string path;
    std::vector<UntunedShape> shapes;   // in file order, padding-collisions merged
    std::vector<std::string> warnings;  // "path:line:column: field 'token': ..." per merge
};

UntunedTable parse_untuned_csv(std::string path, std::string_view text);
UntunedTable read_untuned_csv(const std::string& path);

}  // namespace fhmoe::config
