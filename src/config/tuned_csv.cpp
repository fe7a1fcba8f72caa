#include "fhmoe/config/tuned_csv.hpp"

#include <cerrno>
#include <charconv>
#include <map>
#include <type_traits>
#include <utility>

#include <sys/stat.h>

#include "config/csv_reader.hpp"
#include "config/key_rules.hpp"
#include "config/record_fields.hpp"
#include "fhmoe/config/lookup_key.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

// aiter's file has no measurement columns: reading it must not require them.
constexpr std::array<std::string_view, 2> kMeasurementColumns = {"us", "err"};

TunedLayout layout_of(const CsvTable& table) {
    auto header_is = [&table](auto columns) {
        if (table.header.size() != columns.size()) return false;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            if (table.header[i].text != columns[i]) return false;
        }
        return true;
    };
    if (header_is(kTunedColumns)) return TunedLayout::fhmoe;
    if (header_is(kAiterTunedColumns)) return TunedLayout::aiter;
    return TunedLayout::reordered;
}

TunedRow read_row(const detail::RecordFields& fields, bool has_measurements) {
    TunedRow row;
    row.device = fields.device_key();
    row.shape = fields.shape_key();
    row.block_m = fields.small_integer("block_m");
    row.ksplit = fields.small_integer("ksplit");
    row.kernel_name1 = fields.text("kernelName1");
    row.kernel_name2 = fields.text("kernelName2");
    if (has_measurements) {
        row.us = fields.optional_number("us");
        row.err = fields.optional_number("err");
    }
    if (auto problem = detail::tuned_row_problem(row)) fields.fail(*problem);
    return row;
}

std::string record_text(TunedLayout layout, const CsvRecord& record, const TunedRow& row) {
    switch (layout) {
        case TunedLayout::fhmoe: return record.source_text;
        case TunedLayout::aiter: return record.source_text + ",,";
        case TunedLayout::reordered: return format_tuned_row(row);
    }
    return format_tuned_row(row);
}

std::string format_number(double value) {
    char buffer[64];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    FHMOE_CHECK(error == std::errc(), "formatting a double cannot overflow 64 characters");
    return std::string(buffer, end);
}

}  // namespace

TunedTable parse_tuned_csv(std::string path, std::string_view text) {
    const CsvTable csv = parse_csv(std::move(path), text);
    const std::span<const std::string_view> aiter_columns(kAiterTunedColumns);
    detail::check_columns(csv, aiter_columns, kMeasurementColumns);
    const bool has_us = detail::has_column_pair(csv, "us", "err");

    TunedTable table;
    table.path = csv.path;
    table.layout = layout_of(csv);
    std::map<LookupKey, std::size_t> line_of_key;
    for (const CsvRecord& record : csv.records) {
        const detail::RecordFields fields(csv, record);
        TunedRow row = read_row(fields, has_us);
        const auto [existing, inserted] = line_of_key.emplace(lookup_key(row), record.line);
        if (!inserted) {
            fields.fail("token", "duplicate row: line " + std::to_string(existing->second) +
                                     " has the same lookup key " +
                                     lookup_key_string(existing->first));
        }
        std::string row_text = record_text(table.layout, record, row);
        table.records.push_back(TunedRecord{std::move(row), record.line, std::move(row_text)});
    }
    return table;
}

TunedTable read_tuned_csv(const std::string& path) {
    return parse_tuned_csv(path, read_text_file(path));
}

TunedTable read_tuned_csv_if_exists(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 && errno == ENOENT) {
        TunedTable empty;
        empty.path = path;
        return empty;
    }
    return read_tuned_csv(path);
}

std::string tuned_csv_header() {
    std::string header;
    for (std::string_view column : kTunedColumns) {
        if (!header.empty()) header += ',';
        header += column;
    }
    return header;
}

std::string format_tuned_row(const TunedRow& row) {
    std::string text;
    bool first = true;
    auto add = [&text, &first](std::string_view value) {
        if (!first) text += ',';
        first = false;
        text += value;
    };
    const auto add_key_column = [&add](std::string_view, const auto& value) {
        using Value = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_same_v<Value, std::string>) {
            add(value);
        } else if constexpr (std::is_enum_v<Value>) {
            add(family::to_aiter_string(value));
        } else {
            add(std::to_string(value));
        }
    };
    for_each_leaf(row.device, add_key_column);
    for_each_leaf(row.shape, add_key_column);
    add(std::to_string(row.block_m));
    add(std::to_string(row.ksplit));
    add(row.kernel_name1);
    add(row.kernel_name2);
    text += ',';
    if (row.us) text += format_number(*row.us);
    text += ',';
    if (row.err) text += format_number(*row.err);
    return text;
}

std::string render_tuned_csv(const TunedTable& table) {
    std::string text = tuned_csv_header() + "\n";
    for (const TunedRecord& record : table.records) {
        text += record.text;
        text += '\n';
    }
    return text;
}

}  // namespace fhmoe::config
