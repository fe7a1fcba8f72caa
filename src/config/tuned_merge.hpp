#pragma once

// Applying the rows a run decided to the current tuned table.
//
// Rules:
//  - each decided row is keyed by its lookup key: a decision for raw token 3 is written at
//    token 4, the row serving reads for M in (2, 4];
//  - a current row with a decided key is replaced; a decided key not in the table is added;
//  - every other row (other shapes, other gfx/cu_num, the simulator's "sim" rows) is kept
//    with its text unchanged;
//  - the result is sorted by lookup key: gfx (text), cu_num, then the shape-key columns in
//    CSV order, numerically (enum columns in their declaration order), so the file is the
//    same whatever order the decisions arrived in.
//
// Decided rows come from the tuner, not from a user's file, so an invalid one (empty kernel
// name, two decisions for one key, ...) is a bug: fhmoe::InternalError.

#include <cstddef>
#include <span>

#include "fhmoe/config/tuned_csv.hpp"

namespace fhmoe::config {

struct MergeOutcome {
    TunedTable table;
    std::size_t replaced = 0;
    std::size_t added = 0;
    std::size_t kept = 0;
};

// Checks decided rows alone (the rules of the tuned CSV, with tokens padded first).
void validate_decided_rows(std::span<const TunedRow> decided);

MergeOutcome merge_tuned_rows(const TunedTable& current, std::span<const TunedRow> decided);

}  // namespace fhmoe::config
