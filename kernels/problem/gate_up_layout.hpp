#pragma once

// Where the gate and up rows of output column i live among stage1's 2I weight rows.
// interleave: g0,u0,g1,u1,... (aiter's GateMode.INTERLEAVE); separated: the I gate rows,
// then the I up rows.

#include <cstdint>

#include "fhmoe/family/shape.hpp"

namespace fhmoe::kernels {

inline std::int64_t gate_row(family::GateMode mode, [[maybe_unused]] std::int64_t inter,
                             std::int64_t column) {
    return mode == family::GateMode::interleave ? 2 * column : column;
}

inline std::int64_t up_row(family::GateMode mode, std::int64_t inter, std::int64_t column) {
    return mode == family::GateMode::interleave ? 2 * column + 1 : inter + column;
}

}  // namespace fhmoe::kernels
