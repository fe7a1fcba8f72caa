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
#include "fhmoe/evidence/archive_reader.hpp"
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
        } else if constexpr (std::is_same_v<T, Decision>) {
            value = checked_enum<T>(load<std::uint8_t>(offset), all_decisions, name);
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

// Every row of a table, read into a new element of `records` by `read_columns(visit, record)`.
template <typename Record, typename ReadColumns>
void read_rows(hid_t root, const char* table, const h5::CompoundType& type,
               const ColumnLayout& layout, std::vector<Record>& records, ReadColumns read_columns) {
    h5::for_each_row_bytes(root, table, type, layout.row_size, [&](const std::byte* row) {
        read_columns(RowReader(row, layout), records.emplace_back());
    });
}

constexpr auto kEveryField = [](auto&& visit, auto& record) { for_each_leaf(record, visit); };

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
    read_rows(root, kPolicyTable, schema.policy(), schema.policy_layout(), provenance.policy,
              kEveryField);
    read_rows(root, kRanksTable, schema.ranks(), schema.rank_layout(), provenance.ranks,
              kEveryField);
    return provenance;
}

RunEvidence read_hdf5(const std::string& path) {
    h5::silence_automatic_error_printing();
    h5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open");
    const hid_t root = file.get();
    const std::int64_t version = h5::read_int64_attribute(root, "schema_version");
    if (version != kSchemaVersion && version != kPreviousSchemaVersion) {
        throw Error("schema_version " + std::to_string(version) + " is not supported (this " +
                    "build reads schema_version " + std::to_string(kPreviousSchemaVersion) +
                    " and " + std::to_string(kSchemaVersion) + ")");
    }
    DecisionsLayout layout;
    // Archives written before the race_* fields of /decisions existed lack them.
    layout.race_columns = h5::table_has_field(root, kDecisionsTable, "race_rank");
    layout.challenger_named_winner = version == kPreviousSchemaVersion;
    CandidatesLayout candidates_layout;
    // Archives written before --search screen lack the screen's fields.
    candidates_layout.screen_columns = h5::table_has_field(root, kCandidatesTable, "pruned");
    const ArchiveSchema schema(layout, candidates_layout);
    RunEvidence evidence;
    evidence.provenance = read_provenance(root, schema);
    read_rows(root, kShapesTable, schema.shapes(), schema.shape_layout(), evidence.shapes,
              [](auto&& visit, ShapeRecord& shape) {
                  shape_columns(visit, 0, shape, ShapeRollup{});  // the rollup is derived
              });
    read_rows(root, kCandidatesTable, schema.candidates(), schema.candidate_layout(),
              evidence.candidates, [candidates_layout](auto&& visit, CandidateRecord& record) {
                  candidate_columns(visit, record, candidates_layout);
              });
    read_rows(root, kRaceTable, schema.race(), schema.race_layout(), evidence.race, kEveryField);
    read_rows(root, kDecisionsTable, schema.decisions(), schema.decision_layout(),
              evidence.decisions, [layout](auto&& visit, DecisionRecord& decision) {
                  decision_columns(visit, decision, layout);
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
