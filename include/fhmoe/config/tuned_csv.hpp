#pragma once

// The tuned CSV (DESIGN.md section 4): aiter's tuned_fhmoe.csv columns plus the measured
// `us` (mean microseconds of the whole op) and `err` (its error metric). aiter's shipped
// file, which has no us/err columns, reads as a table of incumbents with unknown timings.
//
// Reading is strict: unknown or missing columns, non-numeric values, non-positive dims,
// model_dim/inter_dim not multiples of 32, shared_expert_id != expert - 1, unknown enum
// text, empty kernel names, negative us/err, a token that is not a serving lookup token
// (get_padded_M(token) != token: serving would never read the row), and two rows with the
// same lookup key are each an fhmoe::InputError naming path:line:column and the column.
// Columns may come in any order (they are matched by name, as aiter does).
//
// Every row keeps its text, so a rewrite leaves the rows it does not change byte-for-byte
// as they were (see TunedRecord::text).

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/family/shape.hpp"

namespace fhmoe::config {

// aiter's tuned_fhmoe.csv columns, in its order: the device and shape key columns (their
// field lists, shape.hpp), then the candidate.
inline constexpr auto kAiterTunedColumns = joined_names(
    family::kDeviceKeyColumns, family::kShapeKeyColumns,
    std::array<std::string_view, 4>{"block_m", "ksplit", "kernelName1", "kernelName2"});

// Our columns: aiter's, then the measurement. This is the order every written file has.
inline constexpr auto kTunedColumns =
    joined_names(kAiterTunedColumns, std::array<std::string_view, 2>{"us", "err"});

// One tuned row: which candidate serves a shape on a device, and how fast it measured.
struct TunedRow {
    family::DeviceKey device;
    family::ShapeKey shape;  // token as written; rows read from a file hold lookup tokens
    int block_m = 0;
    int ksplit = 0;
    std::string kernel_name1;
    std::string kernel_name2;
    std::optional<double> us;   // absent in aiter's file, or when unknown
    std::optional<double> err;  // likewise

    bool operator==(const TunedRow&) const = default;
};

// How the file's columns were laid out when it was read.
enum class TunedLayout {
    fhmoe,      // kTunedColumns in order: rows are written back verbatim
    aiter,      // kAiterTunedColumns in order: rows are written back verbatim plus ",,"
    reordered,  // any other order of a valid column set: rows are re-rendered
};

// A row with where it came from and the exact text it will be written as (without line
// terminator): the source line itself (plus ",," for empty us/err when the file had aiter's
// columns), or the canonical rendering for reordered files and for rows the tuner decided.
struct TunedRecord {
    TunedRow row;
    std::size_t line = 0;  // 0 for rows that did not come from the file
    std::string text;
};

struct TunedTable {
    std::string path;
    TunedLayout layout = TunedLayout::fhmoe;
    std::vector<TunedRecord> records;
};

// `text` as the contents of `path` (the path names the file in errors).
TunedTable parse_tuned_csv(std::string path, std::string_view text);

// Reads and validates a tuned CSV; a missing file is an InputError.
TunedTable read_tuned_csv(const std::string& path);

// As read_tuned_csv, but a file that does not exist yet is an empty table (the first run
// of a tuner creates it).
TunedTable read_tuned_csv_if_exists(const std::string& path);

// "gfx,cu_num,...,us,err".
std::string tuned_csv_header();

// The canonical text of a row in kTunedColumns order (no line terminator). Numbers are
// written in their shortest exact form, absent us/err as empty values.
std::string format_tuned_row(const TunedRow& row);

// The whole file: the header line, then every record's text, each ending in '\n'.
std::string render_tuned_csv(const TunedTable& table);

}  // namespace fhmoe::config
