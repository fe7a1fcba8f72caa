#include "cluster/run_state/tuned_outputs.hpp"

#include <cmath>
#include <optional>

#include "fhmoe/error.hpp"
#include "fhmoe/family/name_grammar.hpp"

namespace fhmoe::cluster {
namespace {

// The CSV is read by people and by serving: aiter rounds us to 4 decimals; err (a fraction)
// keeps 6. The full-precision values stay in the journal and the archive.
std::optional<double> rounded(const std::optional<double>& value, double scale) {
    if (!value) return value;
    return std::round(*value * scale) / scale;
}

}  // namespace

config::TunedRow tuned_row_for(const family::DeviceKey& device,
                               const evidence::PlannedShape& planned,
                               const evidence::ShapeDecision& decision) {
    FHMOE_CHECK(decision.publish, "only a publishing decision has a row");
    config::TunedRow row;
    row.device = device;
    row.shape = family::with_padded_token(planned.shape);
    row.block_m = decision.published_candidate.block_m;
    row.ksplit = 0;  // the family has no split-K (aiter's `kb` names are refused on import)
    row.kernel_name1 = family::format_stage1_name(decision.published_candidate.stage1);
    row.kernel_name2 = family::format_stage2_name(decision.published_candidate.stage2);
    row.us = rounded(decision.published_us, 1e4);
    row.err = rounded(decision.published_err, 1e6);
    return row;
}

std::vector<config::TunedRow> rows_to_publish(const family::DeviceKey& device,
                                              const std::vector<DecidedShape>& decided) {
    std::vector<config::TunedRow> rows;
    for (const auto& shape : decided) {
        if (shape.decision->publish)
            rows.push_back(tuned_row_for(device, *shape.planned, *shape.decision));
    }
    return rows;
}

config::TunedCsvUpdate publish_rows(const std::string& tuned_path,
                                    const std::vector<config::TunedRow>& rows,
                                    std::chrono::milliseconds lock_timeout) {
    if (rows.empty()) return {};
    return config::update_tuned_csv(tuned_path, rows, lock_timeout);
}

}  // namespace fhmoe::cluster
