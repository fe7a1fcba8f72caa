#include "fhmoe/evidence/policy_values.hpp"

namespace fhmoe::evidence {

std::vector<PolicyValue> policy_values(const tuning::TuningPolicy& policy) {
    std::vector<PolicyValue> rows;
    for (const tuning::NamedPolicyValue& field : tuning::named_policy_values(policy)) {
        rows.push_back({field.name, field.value});
    }
    return rows;
}

}  // namespace fhmoe::evidence
