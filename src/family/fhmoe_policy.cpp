#include "fhmoe/family/fhmoe_policy.hpp"

namespace fhmoe::family {

tuning::TuningPolicy fhmoe_tuning_policy() {
    tuning::TuningPolicy policy = tuning::default_policy();
    policy.measurement.rtol = 0.1;
    policy.measurement.atol = 0.1;
    return policy;
}

}  // namespace fhmoe::family
