#pragma once

// A strict reader for the small CSV files a tuner reads and writes (the untuned shapes and
// the tuned table). It follows aiter's _read_csv where that is safe (comma separated, one
// header line, whitespace around names and values stripped, blank lines skipped, a trailing
// CR tolerated) and is stricter where aiter silently guesses: every malformed line is an
// fhmoe::InputError naming path:line:column and the field.
//
// Quoting: a field may be enclosed in double quotes ("a,b" and "say ""hi""" work); a quoted
// field may not span lines, because no column of these files can hold a newline and a
// stray quote would otherwise swallow the rest of the file into one value.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fhmoe::config {

// One value of a line, with the 1-based byte column where its text starts (after the
// stripped leading whitespace), so errors can point at it.
struct CsvField {
    std::string text;
    std::size_t column = 0;
};

// One non-blank line after the header: its fields, its 1-based line number, and its text
// without the line terminator, kept so unchanged rows can be written back byte-for-byte.
struct CsvRecord {
    std::size_t line = 0;
    std::string source_text;
    std::vector<CsvField> fields;
};

struct CsvTable {
    std::string path;  // as given; used in every error message
    std::size_t header_line = 0;
    std::vector<CsvField> header;  // column names
    std::vector<CsvRecord> records;

    // Index of the named column, or -1 when the header lacks it.
    int column_index(std::string_view name) const;
};

// Parses `text` as the contents of `path` (the path only names the file in errors). A file
// with no header line yields an error; every record must have exactly as many fields as
// the header. Duplicate or empty column names are errors.
CsvTable parse_csv(std::string path, std::string_view text);

// Reads the whole file, then parse_csv. An unreadable file is an InputError with line 0.
CsvTable read_csv_file(const std::string& path);

// Reads a whole file into a string; throws InputError (line 0) when it cannot.
std::string read_text_file(const std::string& path);

}  // namespace fhmoe::config
