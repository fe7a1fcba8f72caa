#pragma once

// The measurement of one candidate on a loaded backend, in the order DESIGN.md section 1
// step 3 gives: memory preflight, construction, one checked run against the reference,
// warmup, `iters` timed runs. Injected faults fire here, the same way on every backend.
// With a screen (--search screen, tuning/screen.hpp) the checked run is followed by the
// screen's warmup and timed runs, and the full warmup and `iters` runs only when the screen's
// verdict does not prune the candidate.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/family/candidate.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/tuning/screen.hpp"
#include "fhmoe/wire/measurement_settings.hpp"
#include "fhmoe/wire/screen_settings.hpp"
#include "fhmoe/worker/backend.hpp"
#include "fhmoe/worker/fault_spec.hpp"

namespace fhmoe::worker {

struct MeasurementOutcome {
    tuning::Status status = tuning::Status::not_run;
    std::string detail;
    bool fault_injected = false;
    bool context_poisoned = false;  // the worker must exit after reporting
    tuning::ErrorMetrics error;
    std::vector<double> samples_us;  // the timed runs (ok only)
    tuning::StageSplit stages;       // mean per-stage split over the timed runs
    tuning::ScreenOutcome screen;    // pruned: samples_us are the screen's runs
};

// A candidate to screen before its full measurement: the settings and what it is compared
// with (the chunk's full measurements so far).
struct ScreenRequest {
    wire::ScreenSettings settings;
    tuning::ScreenReferences references;
};

// Called just before a fault that kills or wedges the process fires, so the supervisor can
// be told the crash it is about to see was injected.
using AnnounceFault = std::function<void(const FaultEntry&)>;

MeasurementOutcome measure(Backend& backend, const family::Candidate& candidate,
                           const wire::MeasurementSettings& settings,
                           const std::optional<FaultEntry>& fault, const AnnounceFault& announce,
                           const std::optional<ScreenRequest>& screen = std::nullopt);

}  // namespace fhmoe::worker
