#include "worker/measurement.hpp"

#include <new>
#include <string>

#include "fhmoe/tuning/statistics.hpp"

#include "fault_actions.hpp"
#include "fhmoe/family/legality.hpp"
#include "fhmoe/kernels/accuracy.hpp"
#include "fhmoe/kernels/cpu_op.hpp"

namespace fhmoe::worker {
namespace {

std::string injected(const FaultEntry& fault) {
    return "injected fault " + fault.text() + " (fault injection)";
}

bool is(const std::optional<FaultEntry>& fault, FaultKind kind) {
    return fault && fault->kind == kind;
}

void fire_fatal_fault(PreparedCandidate& prepared, const FaultEntry& fault,
                      const AnnounceFault& announce) {
    switch (fault.kind) {
        case FaultKind::crash:
            announce(fault);
            if (!prepared.inject_device_fault(fault.kind)) crash_with_invalid_write();
            break;
        case FaultKind::exit: announce(fault); exit_abruptly();
        case FaultKind::hang:
            announce(fault);
            if (!prepared.inject_device_fault(fault.kind)) hang_forever();
            break;
        case FaultKind::oom:
            if (!prepared.inject_device_fault(fault.kind)) fail_allocation();
            break;
        default: break;
    }
}

// `runs` timed runs (as `settings` says to time them) appended to `samples`, their per-stage
// split added to `stage_sum`.
void time_runs(PreparedCandidate& prepared, const wire::MeasurementSettings& settings,
               std::uint32_t runs, std::vector<double>& samples, tuning::StageSplit& stage_sum) {
    samples.reserve(samples.size() + runs);
    for (std::uint32_t i = 0; i < runs; ++i) {
        tuning::StageSplit run;
        samples.push_back(prepared.timed_run_us(settings, &run));
        for_each_field_pair(stage_sum, run,
                            [](std::string_view, double& total, double value) { total += value; });
    }
}

tuning::StageSplit mean_split(tuning::StageSplit sum, std::uint32_t runs) {
    const double n = runs > 0 ? static_cast<double>(runs) : 1.0;
    for_each_leaf(sum, [n](std::string_view, double& total) { total /= n; });
    return sum;
}

MeasurementOutcome run_steps(Backend& backend, const family::Candidate& candidate,
                             const wire::MeasurementSettings& settings,
                             const std::optional<FaultEntry>& fault, const AnnounceFault& announce,
                             const std::optional<ScreenRequest>& screen) {
    MeasurementOutcome outcome;
    outcome.fault_injected = fault.has_value();

    if (is(fault, FaultKind::oom_preflight)) {
        outcome.status = tuning::Status::oom_preflight;
        outcome.detail = injected(*fault);
        return outcome;
    }
    const std::uint64_t needed = backend.candidate_bytes(candidate);
    const std::uint64_t available = backend.free_bytes();
    if (needed > available) {
        outcome.status = tuning::Status::oom_preflight;
        outcome.detail = "needs an estimated " + std::to_string(needed) + " bytes, " +
                         std::to_string(available) + " free";
        return outcome;
    }
    if (is(fault, FaultKind::unsupported)) {
        outcome.status = tuning::Status::unsupported;
        outcome.detail = injected(*fault);
        return outcome;
    }

    auto prepared = backend.prepare(candidate);
    outcome.error = prepared->checked_run(settings, is(fault, FaultKind::wrong));
    if (!kernels::passes_accuracy(outcome.error, settings.err_ratio,
                                  settings.max_cosine_distance)) {
        outcome.status = tuning::Status::mismatch;
        outcome.detail = "mismatch_fraction " + std::to_string(outcome.error.mismatch_fraction) +
                         (outcome.error.catastrophic ? " (catastrophic)" : "") + " vs errRatio " +
                         std::to_string(settings.err_ratio) + ", cosine distance " +
                         std::to_string(outcome.error.cosine_distance) + " vs " +
                         std::to_string(settings.max_cosine_distance) +
                         (fault ? "; " + injected(*fault) : "");
        return outcome;
    }
    if (screen) {
        for (std::uint32_t i = 0; i < screen->settings.warmup; ++i)
            prepared->timed_run_us(settings, nullptr);
        // Mid-candidate, before the screen's timed runs: a fault strikes a pruned candidate
        // as it would strike one measured in full.
        if (fault) fire_fatal_fault(*prepared, *fault, announce);
        std::vector<double> screen_samples;
        tuning::StageSplit screen_sum;
        time_runs(*prepared, settings, screen->settings.iters, screen_samples, screen_sum);
        outcome.screen = tuning::screen_verdict(
            tuning::summarize_samples(screen_samples), screen->references,
            screen->settings.min_improvement_pct, screen->settings.error_rate);
        if (outcome.screen.pruned) {
            outcome.samples_us = std::move(screen_samples);
            outcome.stages = mean_split(screen_sum, screen->settings.iters);
            outcome.status = tuning::Status::ok;
            if (fault) outcome.detail = injected(*fault) + " had no effect on this path";
            return outcome;
        }
        // A survivor: the full measurement follows, its warmup and timed runs as usual.
        for (std::uint32_t i = 0; i < settings.warmup; ++i)
            prepared->timed_run_us(settings, nullptr);
    } else {
        for (std::uint32_t i = 0; i < settings.warmup; ++i)
            prepared->timed_run_us(settings, nullptr);
        // Mid-candidate: after the checked run and warmup, where a real fault would strike.
        if (fault) fire_fatal_fault(*prepared, *fault, announce);
    }

    tuning::StageSplit sum;
    time_runs(*prepared, settings, settings.iters, outcome.samples_us, sum);
    outcome.stages = mean_split(sum, settings.iters);
    outcome.status = tuning::Status::ok;
    if (fault) outcome.detail = injected(*fault) + " had no effect on this path";
    return outcome;
}

}  // namespace

MeasurementOutcome measure(Backend& backend, const family::Candidate& candidate,
                           const wire::MeasurementSettings& settings,
                           const std::optional<FaultEntry>& fault, const AnnounceFault& announce,
                           const std::optional<ScreenRequest>& screen) {
    auto failed = [&](tuning::Status status, std::string detail, bool poisoned) {
        MeasurementOutcome outcome;
        outcome.status = status;
        outcome.fault_injected = fault.has_value();
        outcome.detail = std::move(detail);
        if (fault) outcome.detail += "; " + injected(*fault);
        outcome.context_poisoned = poisoned;
        return outcome;
    };
    try {
        return run_steps(backend, candidate, settings, fault, announce, screen);
    } catch (const kernels::UnsupportedCandidate& error) {
        return failed(tuning::Status::unsupported, error.what(), false);
    } catch (const family::UnsupportedShape& error) {
        return failed(tuning::Status::unsupported, error.what(), false);
    } catch (const std::bad_alloc& error) {
        return failed(tuning::Status::oom_runtime,
                      std::string("allocation failed while running: ") + error.what(), false);
    } catch (const DeviceFault& error) {
        return failed(tuning::Status::crash, std::string("device fault: ") + error.what(), true);
    } catch (const std::exception& error) {
        // An error the backend did not classify: the state it left behind is unknown, so the
        // worker is replaced rather than trusted with the next timing.
        return failed(tuning::Status::crash, std::string("error while running: ") + error.what(),
                      true);
    }
}

}  // namespace fhmoe::worker
