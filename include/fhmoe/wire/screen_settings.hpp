#pragma once

// What a worker needs to know to screen the candidates of a chunk (--search screen,
// tuning/screen.hpp): the search policy's values and the promotion bar the incumbent_bar
// bound compares with. It crosses the process boundary in the chunk's MPI message and in the
// worker's run command, as MeasurementSettings does; kept apart from it because a chunk of
// --search exhaustive carries it disabled and a race never carries it.

#include <cstdint>

#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/policy.hpp"

namespace fhmoe::wire {

struct ScreenSettings {
    bool enabled = false;      // --search screen
    std::uint32_t warmup = 2;  // untimed runs after the checked run, before the screen's
    std::uint32_t iters = 8;   // the screen's timed runs
    double error_rate = 0.001;
    double min_improvement_pct = 3.0;
    auto operator<=>(const ScreenSettings&) const = default;
};

template <typename Visitor, RecordOf<ScreenSettings> Record>
constexpr void fields(Visitor&& visit, Record& r) {
    visit("enabled", r.enabled);
    visit("warmup", r.warmup);
    visit("iters", r.iters);
    visit("error_rate", r.error_rate);
    visit("min_improvement_pct", r.min_improvement_pct);
}
static_assert(lists_every_member<ScreenSettings>());

// The policy's search values as they cross to a worker (the one place that maps them).
ScreenSettings screen_settings(const tuning::TuningPolicy& policy);

}  // namespace fhmoe::wire
