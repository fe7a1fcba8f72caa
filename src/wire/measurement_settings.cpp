#include "fhmoe/wire/measurement_settings.hpp"

namespace fhmoe::wire {

MeasurementSettings measurement_settings(const tuning::MeasurementPolicy& policy) {
    MeasurementSettings settings;
    settings.warmup = static_cast<std::uint32_t>(policy.warmup);
    settings.iters = static_cast<std::uint32_t>(policy.iters);
    settings.err_ratio = policy.err_ratio;
    settings.rtol = policy.rtol;
    settings.atol = policy.atol;
    settings.max_cosine_distance = policy.max_cosine_distance;
    settings.rotate_inputs = policy.rotate_inputs;
    settings.graph_replay = policy.graph_replay;
    return settings;
}

}  // namespace fhmoe::wire
