#pragma once

// The policy a run decided with, as the archive's /policy rows: named by the CLI flag where
// there is one (aiter's spellings), by the dotted field otherwise.

#include <vector>

#include "fhmoe/evidence/run_evidence.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::evidence {

std::vector<PolicyValue> policy_values(const tuning::TuningPolicy& policy);

}  // namespace fhmoe::evidence
