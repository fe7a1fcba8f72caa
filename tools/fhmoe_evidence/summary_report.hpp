#pragma once

// The morning-after views of one run: the per-shape summary and every candidate of a shape.

#include <ostream>
#include <string>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence::cli {

// Provenance, one line per shape (status counts, decision, margin, bar, the incumbent's and
// the best challenger's race times, which of them is published, their keys) and the totals.
void print_summary(const RunEvidence& evidence, std::ostream& out);

// Every shape whose shape_key or "gfx/cu_num/shape_key" equals `shape`: its key columns,
// its decision, and all its candidates, ok ones fastest first. False when none matches.
bool print_shape(const RunEvidence& evidence, const std::string& shape, std::ostream& out);

}  // namespace fhmoe::evidence::cli
