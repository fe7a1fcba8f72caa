#pragma once

// Field-by-field comparison of two RunEvidence values, with absent (NaN) values equal to
// each other. A journal rebuild must equal the archive written at the end, and a written
// archive must read back as what was written: both are checked with this.

#include <cstddef>
#include <string>
#include <vector>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence {

// Human-readable differences ("candidates[12].timing.mean_us: 3.5 != 3.25"), at most
// `limit` of them; empty when the two are equal.
std::vector<std::string> evidence_differences(const RunEvidence& expected,
                                              const RunEvidence& actual, std::size_t limit = 20);

}  // namespace fhmoe::evidence
