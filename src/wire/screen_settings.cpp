#include "fhmoe/wire/screen_settings.hpp"

namespace fhmoe::wire {

ScreenSettings screen_settings(const tuning::TuningPolicy& policy) {
    ScreenSettings settings;
    settings.enabled = policy.search.mode == tuning::SearchMode::screen;
    settings.warmup = static_cast<std::uint32_t>(policy.search.screen_warmup);
    settings.iters = static_cast<std::uint32_t>(policy.search.screen_iters);
    settings.error_rate = policy.search.screen_error_rate;
    settings.min_improvement_pct = policy.promotion.min_improvement_pct;
    return settings;
}

}  // namespace fhmoe::wire
