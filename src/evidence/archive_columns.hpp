#pragma once

// The columns of the /candidates, /shapes and /decisions tables (schema version 2,
// docs/evidence-schema.md), which candidates.csv and shapes.csv repeat: walked from the
// records' field lists, so the archive schema, its writer and reader and the CSV export
// take a record's fields from one place. Each walk calls visit(column_name, value) once per
// column, in column order; a value the writer derives (a key, a count) comes as a
// Derived<T>, which readers skip.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "fhmoe/evidence/run_evidence.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/record_fields.hpp"
#include "fhmoe/tuning/status.hpp"

namespace fhmoe::evidence {

template <typename T>
struct Derived {
    T value{};
};

// The enums the archive stores as HDF5 enums; a shape's other enums are stored as text.
template <typename T>
inline constexpr bool is_archive_enum =
    std::is_same_v<T, tuning::Status> || std::is_same_v<T, Decision> ||
    std::is_same_v<T, RatioBasis>;

// How an archive lays out /candidates: as this build writes it, or as an older archive does.
struct CandidatesLayout {
    bool screen_columns = true;  // the screen's fields (--search screen), added on 2026-12-02
};

// shape_id, then every leaf of CandidateResult in field order, with two exceptions where
// schema version 1 put them: candidate_key (derived) before the candidate's fields, and the
// record's relative_to_incumbent and ratio_basis before the first field of `where`. The
// screen's fields are the last; `layout` leaves them out for an archive without them.
template <typename Visitor, RecordOf<CandidateRecord> Record>
void candidate_columns(Visitor&& visit, Record& record, const CandidatesLayout& layout = {}) {
    visit("shape_id", record.shape_id);
    auto& result = record.result;
    const auto* screen_begin = reinterpret_cast<const char*>(&result.screen);
    const auto* screen_end = screen_begin + sizeof(result.screen);
    // A nested record's first leaf has the record's address.
    for_each_leaf(result, [&](std::string_view name, auto& value) {
        const auto* address = reinterpret_cast<const char*>(&value);
        if (!layout.screen_columns && address >= screen_begin && address < screen_end) return;
        if (static_cast<const void*>(&value) == static_cast<const void*>(&result.candidate)) {
            Derived<std::string> candidate_key{result.candidate.key()};
            visit("candidate_key", candidate_key);
        }
        if (static_cast<const void*>(&value) == static_cast<const void*>(&result.where)) {
            visit("relative_to_incumbent", record.relative_to_incumbent);
            visit("ratio_basis", record.ratio_basis);
        }
        visit(name, value);
    });
}

// shape_id, shape_key, the device's fields, the ShapeKey's fields (the tuned CSV's key
// columns) with padded_token after token, candidate_count, one n_<status> count per status,
// and the decision: the last two from the shape's rollup.
template <typename Visitor, RecordOf<ShapeRecord> Record>
void shape_columns(Visitor&& visit, std::uint32_t shape_id, Record& shape,
                   const ShapeRollup& rollup) {
    Derived<std::uint32_t> id{shape_id};
    visit("shape_id", id);
    visit("shape_key", shape.shape_key);
    for_each_leaf(shape.device, visit);
    for_each_leaf(shape.key, [&](std::string_view name, auto& value) {
        visit(name, value);
        if (static_cast<const void*>(&value) == static_cast<const void*>(&shape.key.token)) {
            Derived<std::int64_t> padded{family::padded_token(shape.key.token)};
            visit("padded_token", padded);
        }
    });
    visit("candidate_count", shape.candidate_count);
    for (tuning::Status status : tuning::all_statuses) {
        const std::string name = "n_" + std::string(tuning::to_string(status));
        Derived<std::uint32_t> count{static_cast<std::uint32_t>(rollup.status_counts[status])};
        visit(std::string_view(name), count);
    }
    Derived<Decision> decision{rollup.decision};
    visit("decision", decision);
}

// How an archive lays out /decisions: as this build writes it, or as an older archive does.
struct DecisionsLayout {
    bool race_columns = true;  // the race_* fields, added on 2026-11-30
    // schema_version 1 named the best_challenger_* fields winner_*: "winner" meant the best
    // challenger there, also when it lost (renamed in schema_version 2, 2026-12-02).
    bool challenger_named_winner = false;
};

inline constexpr std::string_view kBestChallengerPrefix = "best_challenger_";

// The DecisionRecord's fields with published_key (derived) before reason, laid out as
// `layout` says (the race_* fields are the last four).
template <typename Visitor, RecordOf<DecisionRecord> Record>
void decision_columns(Visitor&& visit, Record& record, const DecisionsLayout& layout = {}) {
    static_assert(field_count<DecisionRecord>() == 16,
                  "a DecisionRecord field: decide whether old archives have its column");
    bool race_columns = false;  // from race_rank on
    for_each_leaf(record, [&](std::string_view name, auto& value) {
        const void* address = &value;
        if (address == static_cast<const void*>(&record.reason)) {
            Derived<std::string> key{published_key(record)};
            visit("published_key", key);
        }
        race_columns = race_columns || address == static_cast<const void*>(&record.race_rank);
        if (race_columns && !layout.race_columns) return;
        if (layout.challenger_named_winner && name.starts_with(kBestChallengerPrefix)) {
            const std::string old_name =
                "winner_" + std::string(name.substr(kBestChallengerPrefix.size()));
            visit(std::string_view(old_name), value);
            return;
        }
        visit(name, value);
    });
}

}  // namespace fhmoe::evidence
