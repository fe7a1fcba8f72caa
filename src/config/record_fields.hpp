#pragma once

// Typed access to the values of one CSV record by column name. Every failure is an
// fhmoe::InputError pointing at the value's line and column, so the schema readers only
// say what they expect.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "config/csv_reader.hpp"
#include "config/key_rules.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::config::detail {

// Checks the header against a schema: every required column present, every column known.
// `optional` columns may be absent.
void check_columns(const CsvTable& table, std::span<const std::string_view> required,
                   std::span<const std::string_view> optional = {});

// For two optional columns that only mean something together (us/err, gfx/cu_num): whether
// both are present. One without the other is an InputError at the one present.
bool has_column_pair(const CsvTable& table, std::string_view first, std::string_view second);

class RecordFields {
public:
    RecordFields(const CsvTable& table, const CsvRecord& record) : table_(table), record_(record) {}

    const CsvRecord& record() const { return record_; }

    // Non-empty text that can be written back unquoted (see text_value_problem).
    std::string text(std::string_view column) const;
    std::int64_t integer(std::string_view column) const;
    int small_integer(std::string_view column) const;
    // Empty means absent; otherwise a finite number.
    std::optional<double> optional_number(std::string_view column) const;

    // An enum column: `parse` throws fhmoe::ParseError on unknown text.
    template <typename Parse>
    auto enumeration(std::string_view column, Parse parse) const {
        const CsvField& value = field(column);
        try {
            return parse(value.text);
        } catch (const ParseError& error) {
            fail(column, error.what());
        }
    }

    family::ShapeKey shape_key() const;
    family::DeviceKey device_key() const;

    [[noreturn]] void fail(std::string_view column, const std::string& reason) const;
    [[noreturn]] void fail(const FieldProblem& problem) const {
        fail(problem.field, problem.reason);
    }

private:
    const CsvField& field(std::string_view column) const;

    const CsvTable& table_;
    const CsvRecord& record_;
};

}  // namespace fhmoe::config::detail
