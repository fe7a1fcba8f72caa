#pragma once

// The tuned rows a run publishes: a promoted best challenger, or the first row of a shape that had
// none (its retained default config, now with a measured time). Rows are keyed by the
// serving lookup token (get_padded_M), so a shape tuned at raw token 3 is written at 4, the
// row serving reads for it.

#include <chrono>
#include <vector>

#include "fhmoe/config/tuned_csv.hpp"
#include "fhmoe/config/tuned_csv_update.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::cluster {

// Requires decision.publish.
config::TunedRow tuned_row_for(const family::DeviceKey& device,
                               const evidence::PlannedShape& planned,
                               const evidence::ShapeDecision& decision);

struct DecidedShape {
    const evidence::PlannedShape* planned = nullptr;
    const evidence::ShapeDecision* decision = nullptr;
};

// The rows of every decision that publishes one, in the order given.
std::vector<config::TunedRow> rows_to_publish(const family::DeviceKey& device,
                                              const std::vector<DecidedShape>& decided);

// Locked, atomic merge into the tuned CSV (config/tuned_csv_update.hpp); nothing is written
// when `rows` is empty.
config::TunedCsvUpdate publish_rows(const std::string& tuned_path,
                                    const std::vector<config::TunedRow>& rows,
                                    std::chrono::milliseconds lock_timeout);

}  // namespace fhmoe::cluster
