#include "config/record_fields.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "fhmoe/text_excerpt.hpp"

namespace fhmoe::config::detail {
namespace {

bool contains(std::span<const std::string_view> names, std::string_view name) {
    for (std::string_view candidate : names) {
        if (candidate == name) return true;
    }
    return false;
}

// A field can be megabytes long; the message names it without burying itself in it.
std::string quoted(const std::string& text) { return "'" + excerpt(text) + "'"; }

}  // namespace

void check_columns(const CsvTable& table, std::span<const std::string_view> required,
                   std::span<const std::string_view> optional) {
    for (const CsvField& name : table.header) {
        if (!contains(required, name.text) && !contains(optional, name.text)) {
            throw InputError(table.path, table.header_line, name.column, name.text,
                             "unknown column");
        }
    }
    for (std::string_view name : required) {
        if (table.column_index(name) < 0) {
            throw InputError(table.path, table.header_line, 1, std::string(name),
                             "missing column in the header");
        }
    }
}

bool has_column_pair(const CsvTable& table, std::string_view first, std::string_view second) {
    const bool has_first = table.column_index(first) >= 0;
    const bool has_second = table.column_index(second) >= 0;
    if (has_first != has_second) {
        const CsvField& present =
            table.header[static_cast<std::size_t>(table.column_index(has_first ? first : second))];
        throw InputError(table.path, table.header_line, present.column,
                         std::string(has_first ? second : first),
                         "missing column: '" + std::string(first) + "' and '" +
                             std::string(second) + "' come together");
    }
    return has_first;
}

const CsvField& RecordFields::field(std::string_view column) const {
    const int index = table_.column_index(column);
    FHMOE_CHECK(index >= 0, "column '" + std::string(column) + "' not checked by the schema");
    return record_.fields[static_cast<std::size_t>(index)];
}

void RecordFields::fail(std::string_view column, const std::string& reason) const {
    const int index = table_.column_index(column);
    const std::size_t position =
        index >= 0 ? record_.fields[static_cast<std::size_t>(index)].column : 1;
    throw InputError(table_.path, record_.line, position, std::string(column), reason);
}

std::string RecordFields::text(std::string_view column) const {
    const CsvField& value = field(column);
    if (auto problem = text_value_problem(value.text)) fail(column, *problem);
    return value.text;
}

std::int64_t RecordFields::integer(std::string_view column) const {
    const CsvField& value = field(column);
    if (value.text.empty()) fail(column, "empty value (an integer is required)");
    std::int64_t result = 0;
    const char* begin = value.text.data();
    const char* end = begin + value.text.size();
    const auto [stop, error] = std::from_chars(begin, end, result);
    if (error == std::errc::result_out_of_range) {
        fail(column, quoted(value.text) + " is out of range");
    }
    if (error != std::errc() || stop != end) {
        fail(column, quoted(value.text) + " is not an integer");
    }
    return result;
}

int RecordFields::small_integer(std::string_view column) const {
    const std::int64_t value = integer(column);
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
        fail(column, quoted(field(column).text) + " is out of range");
    }
    return static_cast<int>(value);
}

std::optional<double> RecordFields::optional_number(std::string_view column) const {
    const CsvField& value = field(column);
    if (value.text.empty()) return std::nullopt;
    double result = 0.0;
    const char* begin = value.text.data();
    const char* end = begin + value.text.size();
    const auto [stop, error] = std::from_chars(begin, end, result);
    if (error != std::errc() || stop != end || !std::isfinite(result)) {
        fail(column, quoted(value.text) + " is not a finite number (leave it empty if unknown)");
    }
    return result;
}

family::ShapeKey RecordFields::shape_key() const {
    family::ShapeKey shape;
    for_each_leaf(shape, [this](std::string_view column, auto& value) {
        using Value = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_enum_v<Value>) {
            value = enumeration(column, [](std::string_view text) {
                Value parsed{};
                family::parse_aiter_string(text, parsed);
                return parsed;
            });
        } else if constexpr (std::is_same_v<Value, int>) {
            value = small_integer(column);
        } else {
            static_assert(std::is_same_v<Value, std::int64_t>, "a key column of another type");
            value = integer(column);
        }
    });
    if (auto problem = shape_key_problem(shape)) fail(*problem);
    return shape;
}

family::DeviceKey RecordFields::device_key() const {
    family::DeviceKey device;
    device.gfx = text("gfx");
    device.cu_num = small_integer("cu_num");
    if (auto problem = device_key_problem(device)) fail(*problem);
    return device;
}

}  // namespace fhmoe::config::detail
