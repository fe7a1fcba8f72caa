#pragma once

// The policy a run decided with, as the archive's /policy rows, named and ordered by
// tuning::named_policy_values (the one list of policy names).

#include <vector>

#include "fhmoe/evidence/run_evidence.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::evidence {

std::vector<PolicyValue> policy_values(const tuning::TuningPolicy& policy);

}  // namespace fhmoe::evidence
