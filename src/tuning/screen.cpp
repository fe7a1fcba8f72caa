#include "fhmoe/tuning/screen.hpp"

#include <cmath>
#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace fhmoe::tuning {
namespace {

// The lower confidence limit of candidate - k * reference, in microseconds.
double lower_limit_us(const TimingStats& candidate, const TimingStats& reference, double k,
                      double t) {
    const double difference = candidate.mean_us - k * reference.mean_us;
    const double spread = std::sqrt(candidate.stderr_us * candidate.stderr_us +
                                    k * k * reference.stderr_us * reference.stderr_us);
    return difference - t * spread;
}

}  // namespace

ScreenOutcome screen_verdict(const TimingStats& screen, const ScreenReferences& references,
                             double min_improvement_pct, double error_rate) {
    FHMOE_CHECK(screen.n_kept >= 2, "a screen of " + std::to_string(screen.n_kept) + " runs");
    FHMOE_CHECK(screen.mean_us > 0.0 && std::isfinite(screen.mean_us),
                "a screen without a positive mean");
    FHMOE_CHECK(error_rate > 0.0 && error_rate <= 0.5, "screen error rate out of (0, 0.5]");
    FHMOE_CHECK(min_improvement_pct >= 0.0, "negative min_improvement_pct");

    ScreenOutcome outcome;
    outcome.screened = true;
    outcome.screen_runs = screen.n_raw;
    const TimingStats* scale = references.incumbent    ? &*references.incumbent
                               : references.chunk_best ? &*references.chunk_best
                                                       : nullptr;
    if (scale == nullptr) return outcome;
    FHMOE_CHECK(scale->mean_us > 0.0, "a screen reference without a positive mean");

    const double t =
        student_t_quantile(1.0 - error_rate / 2.0, static_cast<int>(screen.n_kept) - 1);
    bool have_bound = false;
    auto consider = [&](std::string_view name, const TimingStats& reference, double k) {
        const double margin_pct = 100.0 * lower_limit_us(screen, reference, k, t) / scale->mean_us;
        if (!have_bound || margin_pct > outcome.prune_margin_pct) {
            outcome.prune_bound = std::string(name);
            outcome.prune_margin_pct = margin_pct;
            have_bound = true;
        }
    };
    if (references.incumbent) {
        consider(kIncumbentBarBound, *references.incumbent, 1.0 - min_improvement_pct / 100.0);
    }
    if (references.chunk_best) consider(kChunkBestBound, *references.chunk_best, 1.0);
    outcome.pruned = outcome.prune_margin_pct > 0.0;
    return outcome;
}

void note_chunk_result(ScreenReferences& references, bool is_incumbent,
                       const CandidateResult& result) {
    if (result.status != Status::ok) return;
    if (is_incumbent) {
        references.incumbent = result.timing;
    } else if (result.screen.screened && !result.screen.pruned &&
               (!references.chunk_best || result.timing.mean_us < references.chunk_best->mean_us)) {
        references.chunk_best = result.timing;
    }
}

}  // namespace fhmoe::tuning
