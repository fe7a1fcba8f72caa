#include "config/tuned_merge.hpp"

#include <map>

#include "config/key_rules.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

TunedRow at_lookup_token(TunedRow row) {
    row.shape = family::with_padded_token(row.shape);
    return row;
}

}  // namespace

void validate_decided_rows(std::span<const TunedRow> decided) {
    std::map<LookupKey, std::size_t> index_of_key;
    for (std::size_t i = 0; i < decided.size(); ++i) {
        const TunedRow row = at_lookup_token(decided[i]);
        const LookupKey key = lookup_key(row);
        if (auto problem = detail::tuned_row_problem(row)) {
            throw InternalError("decided row " + std::to_string(i) + " (" + lookup_key_string(key) +
                                "): field '" + problem->field + "': " + problem->reason);
        }
        const auto [existing, inserted] = index_of_key.emplace(key, i);
        if (!inserted) {
            throw InternalError("decided rows " + std::to_string(existing->second) + " and " +
                                std::to_string(i) + " both decide " + lookup_key_string(key));
        }
    }
}

MergeOutcome merge_tuned_rows(const TunedTable& current, std::span<const TunedRow> decided) {
    validate_decided_rows(decided);

    std::map<LookupKey, TunedRecord> by_key;
    for (const TunedRecord& record : current.records) {
        by_key.emplace(lookup_key(record.row), record);
    }
    MergeOutcome outcome;
    for (const TunedRow& decided_row : decided) {
        TunedRow row = at_lookup_token(decided_row);
        std::string text = format_tuned_row(row);
        auto [slot, inserted] = by_key.try_emplace(lookup_key(row));
        (inserted ? outcome.added : outcome.replaced) += 1;
        slot->second = TunedRecord{std::move(row), 0, std::move(text)};
    }
    outcome.kept = current.records.size() - outcome.replaced;

    outcome.table.path = current.path;
    outcome.table.layout = TunedLayout::fhmoe;
    outcome.table.records.reserve(by_key.size());
    for (auto& [key, record] : by_key) outcome.table.records.push_back(std::move(record));
    return outcome;
}

}  // namespace fhmoe::config
