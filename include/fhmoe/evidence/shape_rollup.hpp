#pragma once

// Per-shape columns derived from the other tables: the archive stores them denormalised in
// /shapes so a reader with h5py gets the coverage line without a join, and the reader checks
// them against the rows they summarise.

#include <vector>

#include "fhmoe/evidence/run_evidence.hpp"
#include "fhmoe/tuning/status_counts.hpp"

namespace fhmoe::evidence {

struct ShapeRollup {
    tuning::StatusCounts status_counts;  // of the candidate rows of the shape
    Decision decision = Decision::pending;
};

// One rollup per shape, in shape order. Throws fhmoe::InternalError when a row names a shape
// id that does not exist or a shape has two decisions.
std::vector<ShapeRollup> roll_up_shapes(const RunEvidence& evidence);

// Throws fhmoe::InternalError for evidence the archive cannot represent faithfully: a row
// with an unknown shape id, a candidate whose shape_key differs from its shape's, a shape
// with two decisions, or a decision recorded as pending.
void check_consistent(const RunEvidence& evidence);

}  // namespace fhmoe::evidence
