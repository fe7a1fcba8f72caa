#pragma once

// The validity rules of the key and result columns, on typed values, so the readers (which
// point the error at a file position) and the merge (which checks rows the tuner decided)
// apply the same rules.

#include <optional>
#include <string>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::config::detail {

struct FieldProblem {
    std::string field;  // the CSV column the problem is reported at
    std::string reason;
};

std::optional<FieldProblem> shape_key_problem(const family::ShapeKey& shape);
std::optional<FieldProblem> device_key_problem(const family::DeviceKey& device);

// Everything a tuned row must satisfy, including that its token is a serving lookup token.
std::optional<FieldProblem> tuned_row_problem(const TunedRow& row);

// Free text columns (gfx, kernel names) are written unquoted, so they may not hold what
// would need quoting or would not survive the reader's whitespace stripping.
std::optional<std::string> text_value_problem(const std::string& value);

}  // namespace fhmoe::config::detail
