#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "evidence/archive_columns.hpp"
#include "evidence/archive_schema.hpp"
#include "evidence/archive_seal.hpp"
#include "evidence/hdf5_attribute.hpp"
#include "evidence/hdf5_table.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/evidence/archive.hpp"
#include "fhmoe/evidence/shape_rollup.hpp"

namespace fhmoe::evidence {
namespace {

std::string text_of(const char* text) { return text ? text : ""; }

// HDF5 converts an enum value the reader's type lacks into all ones instead of failing, so
// every enum column is range-checked before it becomes a C++ enum.
template <typename Enum, typename Values>
Enum checked_enum(std::uint8_t stored, const Values& values, std::string_view column) {
    for (Enum value : values) {
        if (static_cast<std::uint8_t>(value) == stored) return value;
    }
    throw Error("column '" + std::string(column) + "' holds an unknown value " +
                std::to_string(stored));
}

Provenance read_provenance(hid_t root, const ArchiveSchema& schema) {
    Provenance provenance;
    provenance.tool_version = h5::read_string_attribute(root, "tool_version");
    provenance.git_revision = h5::read_string_attribute(root, "git_revision");
    provenance.command_line = h5::read_strings_attribute(root, "command_line");
    provenance.backend = h5::read_string_attribute(root, "backend");
    provenance.seed = h5::read_uint64_attribute(root, "seed");
    provenance.started_unix = h5::read_int64_attribute(root, "started_unix");
    provenance.finished_unix = h5::read_int64_attribute(root, "finished_unix");
    provenance.exit_status = static_cast<int>(h5::read_int64_attribute(root, "exit_status"));
    provenance.complete = h5::read_bool_attribute(root, "complete");
    h5::for_each_row<PolicyRow>(root, kPolicyTable, schema.policy(), [&](const PolicyRow& row) {
        provenance.policy.push_back(PolicyValue{text_of(row.name), row.value});
    });
    h5::for_each_row<RankRow>(root, kRanksTable, schema.ranks(), [&](const RankRow& row) {
        provenance.ranks.push_back(RankInfo{row.rank, text_of(row.host), row.device_index,
                                            text_of(row.device_name), text_of(row.device_uuid),
                                            text_of(row.driver)});
    });
    return provenance;
}

// Reads rows laid out by a ColumnLayout, one column per visit (archive_columns.hpp).
class RowReader {
public:
    RowReader(const std::byte* row, const ColumnLayout& layout) : row_(row), layout_(layout) {}

    template <typename T>
    void operator()(std::string_view name, T& value) {
        const std::size_t offset = layout_.offsets.at(column_++);
        if constexpr (std::is_same_v<T, std::string>) {
            value = text_of(load<TextField>(offset));
        } else if constexpr (std::is_same_v<T, bool>) {
            value = load<std::int8_t>(offset) != 0;
        } else if constexpr (std::is_same_v<T, tuning::Status>) {
            value = checked_enum<T>(load<std::uint8_t>(offset), tuning::all_statuses, name);
        } else if constexpr (std::is_same_v<T, RatioBasis>) {
            value = checked_enum<T>(load<std::uint8_t>(offset), all_ratio_bases, name);
        } else if constexpr (std::is_enum_v<T>) {
            family::parse_aiter_string(text_of(load<TextField>(offset)), value);
        } else {
            value = load<T>(offset);
        }
    }

    template <typename T>
    void operator()(std::string_view, Derived<T>&) {
        ++column_;  // derived from the other columns when written: nothing to read back
    }

private:
    template <typename T>
    T load(std::size_t offset) const {
        T value;
        std::memcpy(&value, row_ + offset, sizeof value);
        return value;
    }

    const std::byte* row_;
    const ColumnLayout& layout_;
    std::size_t column_ = 0;
};

DecisionRecord decision_from(const DecisionRow& row, bool with_race_columns) {
    DecisionRecord decision;
    decision.shape_id = row.shape_id;
    decision.decision = checked_enum<Decision>(row.decision, all_decisions, "decision");
    decision.incumbent_key = text_of(row.incumbent_key);
    decision.incumbent_us = row.incumbent_us;
    decision.incumbent_stderr_us = row.incumbent_stderr_us;
    decision.winner_key = text_of(row.winner_key);
    decision.winner_us = row.winner_us;
    decision.winner_stderr_us = row.winner_stderr_us;
    decision.margin_pct = row.margin_pct;
    decision.bar_pct = row.bar_pct;
    decision.noise_floor_pct = row.noise_floor_pct;
    decision.reason = text_of(row.reason);
    if (with_race_columns) {
        decision.race_rank = row.race_rank;
        decision.race_host = text_of(row.race_host);
        decision.race_started_unix_ns = row.race_started_unix_ns;
        decision.race_finished_unix_ns = row.race_finished_unix_ns;
    }
    return decision;
}

RunEvidence read_hdf5(const std::string& path) {
    h5::silence_automatic_error_printing();
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open");
    const hid_t root = file.get();
    const std::int64_t version = h5::read_int64_attribute(root, "schema_version");
    if (version != kSchemaVersion) {
        throw Error("schema_version " + std::to_string(version) + " is not supported (this " +
                    "build reads schema_version " + std::to_string(kSchemaVersion) + ")");
    }
    // Archives written before the race_* fields of /decisions existed lack them.
    const bool with_race_columns = h5::table_has_field(root, kDecisionsTable, "race_rank");
    const ArchiveSchema schema(with_race_columns);
    RunEvidence evidence;
    evidence.provenance = read_provenance(root, schema);
    const ShapeRollup ignored;
    h5::for_each_row_bytes(root, kShapesTable, schema.shapes(), schema.shape_layout().row_size,
                           [&](const std::byte* row) {
                               ShapeRecord& shape = evidence.shapes.emplace_back();
                               shape_columns(RowReader(row, schema.shape_layout()), 0, shape,
                                             ignored);
                           });
    h5::for_each_row_bytes(root, kCandidatesTable, schema.candidates(),
                           schema.candidate_layout().row_size, [&](const std::byte* row) {
                               candidate_columns(RowReader(row, schema.candidate_layout()),
                                                 evidence.candidates.emplace_back());
                           });
    h5::for_each_row<RaceRow>(root, kRaceTable, schema.race(), [&](const RaceRow& row) {
        evidence.race.push_back(RaceSample{row.shape_id, text_of(row.candidate_key), row.round,
                                           row.time_us, row.is_incumbent != 0});
    });
    h5::for_each_row<DecisionRow>(
        root, kDecisionsTable, schema.decisions(), [&](const DecisionRow& row) {
            evidence.decisions.push_back(decision_from(row, with_race_columns));
        });
    return evidence;
}

}  // namespace

RunEvidence read_archive(const std::string& path) {
    verify_archive_seal(path);
    try {
        RunEvidence evidence = read_hdf5(path);
        // Rows that point at shapes the archive does not have would crash every consumer.
        check_consistent(evidence);
        return evidence;
    } catch (const Error& error) {
        throw Error("evidence archive '" + path + "': " + error.what());
    }
}

}  // namespace fhmoe::evidence
