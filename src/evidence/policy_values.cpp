#include "fhmoe/evidence/policy_values.hpp"

namespace fhmoe::evidence {

std::vector<PolicyValue> policy_values(const tuning::TuningPolicy& policy) {
    const tuning::MeasurementPolicy& m = policy.measurement;
    return {
        {"warmup", static_cast<double>(m.warmup)},
        {"iters", static_cast<double>(m.iters)},
        {"errRatio", m.err_ratio},
        {"measurement.rtol", m.rtol},
        {"measurement.atol", m.atol},
        {"timeout", m.timeout_s},
        {"measurement.rotate_inputs", m.rotate_inputs ? 1.0 : 0.0},
        {"batch", static_cast<double>(policy.run.batch)},
        {"min_improvement_pct", policy.promotion.min_improvement_pct},
        {"promotion.noise_floor_sigmas", policy.promotion.noise_floor_sigmas},
        {"finalist.finalists", static_cast<double>(policy.finalist.finalists)},
        {"finalist.rounds", static_cast<double>(policy.finalist.rounds)},
    };
}

}  // namespace fhmoe::evidence
