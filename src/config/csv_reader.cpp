#include "config/csv_reader.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

#include "config/posix_file.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool is_blank_char(char c) { return c == ' ' || c == '\t'; }

bool is_blank_line(std::string_view line) {
    for (char c : line) {
        if (!is_blank_char(c)) return false;
    }
    return true;
}

std::string_view strip_trailing_blanks(std::string_view text) {
    while (!text.empty() && is_blank_char(text.back())) text.remove_suffix(1);
    return text;
}

// Splits one line into fields. `field_name(i)` names the i-th field for errors (the
// header line names its fields by position, records by column name).
template <typename FieldName>
std::vector<CsvField> split_line(const std::string& path, std::size_t line_number,
                                 std::string_view line, FieldName field_name) {
    std::vector<CsvField> fields;
    std::size_t pos = 0;
    while (true) {
        while (pos < line.size() && is_blank_char(line[pos])) ++pos;
        CsvField field;
        field.column = pos + 1;
        const std::size_t index = fields.size();
        if (pos < line.size() && line[pos] == '"') {
            ++pos;
            bool closed = false;
            while (pos < line.size()) {
                if (line[pos] == '"') {
                    if (pos + 1 < line.size() && line[pos + 1] == '"') {
                        field.text += '"';
                        pos += 2;
                        continue;
                    }
                    ++pos;
                    closed = true;
                    break;
                }
                field.text += line[pos++];
            }
            if (!closed) {
                throw InputError(path, line_number, field.column, field_name(index),
                                 "unterminated quoted value (a value cannot span lines)");
            }
            while (pos < line.size() && is_blank_char(line[pos])) ++pos;
            if (pos < line.size() && line[pos] != ',') {
                throw InputError(path, line_number, pos + 1, field_name(index),
                                 std::string("unexpected '") + line[pos] +
                                     "' after a closing quote (expected ',' or end of line)");
            }
        } else {
            const std::size_t start = pos;
            while (pos < line.size() && line[pos] != ',') {
                if (line[pos] == '"') {
                    throw InputError(path, line_number, pos + 1, field_name(index),
                                     "a quote inside an unquoted value (quote the whole value "
                                     "and double the inner quote)");
                }
                ++pos;
            }
            field.text = std::string(strip_trailing_blanks(line.substr(start, pos - start)));
        }
        fields.push_back(std::move(field));
        if (pos >= line.size()) break;
        ++pos;  // the comma
    }
    return fields;
}

}  // namespace

int CsvTable::column_index(std::string_view name) const {
    for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i].text == name) return static_cast<int>(i);
    }
    return -1;
}

CsvTable parse_csv(std::string path, std::string_view text) {
    CsvTable table;
    table.path = std::move(path);
    if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());

    std::size_t line_number = 0;
    std::size_t offset = 0;
    while (offset < text.size()) {
        const std::size_t end = text.find('\n', offset);
        std::string_view line =
            end == std::string_view::npos ? text.substr(offset) : text.substr(offset, end - offset);
        offset = end == std::string_view::npos ? text.size() : end + 1;
        ++line_number;
        if (line.ends_with('\r')) line.remove_suffix(1);
        if (is_blank_line(line)) continue;

        if (table.header.empty()) {
            table.header_line = line_number;
            table.header = split_line(table.path, line_number, line, [](std::size_t index) {
                return "(header column " + std::to_string(index + 1) + ")";
            });
            for (std::size_t i = 0; i < table.header.size(); ++i) {
                const CsvField& name = table.header[i];
                if (name.text.empty()) {
                    throw InputError(table.path, line_number, name.column,
                                     "(header column " + std::to_string(i + 1) + ")",
                                     "empty column name");
                }
                for (std::size_t j = 0; j < i; ++j) {
                    if (table.header[j].text == name.text) {
                        throw InputError(table.path, line_number, name.column, name.text,
                                         "column named twice (first at column " +
                                             std::to_string(table.header[j].column) + ")");
                    }
                }
            }
            continue;
        }

        const auto& header = table.header;
        CsvRecord record;
        record.line = line_number;
        record.source_text = std::string(line);
        record.fields = split_line(table.path, line_number, line, [&header](std::size_t index) {
            return index < header.size() ? header[index].text : std::string("(extra)");
        });
        if (record.fields.size() > header.size()) {
            throw InputError(
                table.path, line_number, record.fields[header.size()].column, "(extra)",
                "line has " + std::to_string(record.fields.size()) + " values but the header has " +
                    std::to_string(header.size()) + " columns");
        }
        if (record.fields.size() < header.size()) {
            throw InputError(
                table.path, line_number, line.size() + 1, header[record.fields.size()].text,
                "missing value: line has " + std::to_string(record.fields.size()) +
                    " values but the header has " + std::to_string(header.size()) + " columns");
        }
        table.records.push_back(std::move(record));
    }
    if (table.header.empty()) {
        throw InputError(table.path, 1, 1, "(header)", "no header line (the file is empty)");
    }
    return table;
}

std::string read_text_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw InputError(path, 0, 0, "", std::string("cannot open: ") + std::strerror(errno));
    }
    std::string contents;
    const int error = detail::read_all(fd, contents);
    ::close(fd);
    if (error != 0) {
        throw InputError(path, 0, 0, "", std::string("cannot read: ") + std::strerror(error));
    }
    return contents;
}

CsvTable read_csv_file(const std::string& path) { return parse_csv(path, read_text_file(path)); }

}  // namespace fhmoe::config
