#pragma once

// The table rank 0 prints at the end (aiter's tune_summary, made correct for padded keys):
// one line per shape of the untuned file with its candidates by status, the published
// candidate, the incumbent, the best challenger, the margin and decision, and whether the tuned CSV
// now has the row serving will look up. A raw token 3 tuned and written at 4 reads "tuned: yes".

#include <optional>
#include <string>
#include <vector>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/config/untuned_csv.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/tuning/status_counts.hpp"

namespace fhmoe::cluster {

struct ShapeOutcome {
    const evidence::PlannedShape* planned = nullptr;
    tuning::StatusCounts counts;
    std::optional<evidence::ShapeDecision> decision;
};

struct SummaryLine {
    std::string shape;  // shape key with the raw token
    std::int64_t lookup_token = 0;
    std::string counts;                  // "8 ok, 1 crash"
    tuning::StatusCounts status_counts;  // the same, as numbers
    std::string incumbent;
    std::string published;  // what serving uses after the run; "-" when nothing is published
    // The race's best ok challenger, published or not; empty when none finished ok.
    std::string best_challenger;
    std::optional<double> margin_pct;  // the best challenger's margin over the incumbent
    std::string
        decision;  // promote | retain | incomplete | all_failed | already tuned | other device
    bool tuned = false;  // the tuned CSV has the lookup key's row for the device
    std::string reason;
};

std::vector<SummaryLine> summarize_run(const std::vector<ShapeOutcome>& tuned_this_run,
                                       const std::vector<config::UntunedShape>& already_tuned,
                                       const std::vector<config::UntunedShape>& other_device,
                                       const config::TunedTable& tuned_after,
                                       const family::DeviceKey& device);

std::string format_summary(const std::vector<SummaryLine>& lines);

// "ok 8, crash 1" in status order, statuses with a zero count left out.
std::string format_counts(const tuning::StatusCounts& counts);

}  // namespace fhmoe::cluster
