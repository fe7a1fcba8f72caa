#include "fhmoe/error.hpp"

#include <string_view>
#include <utility>

#include "fhmoe/text_excerpt.hpp"

namespace fhmoe {
namespace {

// This file's own path, as the compiler was given it, less "src/error.cpp": the root of the
// source tree every project file was compiled from.
std::string_view source_root() {
    constexpr std::string_view kThisFile = "src/error.cpp";
    std::string_view path = std::source_location::current().file_name();
    if (path.size() < kThisFile.size() || !path.ends_with(kThisFile)) return {};
    return path.substr(0, path.size() - kThisFile.size());
}

std::string location_text(const std::source_location& where) {
    std::string_view file = where.file_name();
    const std::string_view root = source_root();
    if (!root.empty() && file.starts_with(root)) file.remove_prefix(root.size());
    return std::string(file) + ":" + std::to_string(where.line());
}

std::string format_input_error(const std::string& path, std::size_t line, std::size_t column,
                               const std::string& field, const std::string& reason) {
    // A path or a column name can be as long as the user made it: the message stays readable.
    std::string text = excerpt(path, kPathExcerptChars);
    if (line > 0) {
        text += ":" + std::to_string(line);
        if (column > 0) text += ":" + std::to_string(column);
    }
    text += ": ";
    if (!field.empty()) text += "field '" + excerpt(field) + "': ";
    text += reason;
    return text;
}

}  // namespace

Error::Error(const std::string& message, std::source_location where, WhereInWhat where_in_what)
    : std::runtime_error(where_in_what == WhereInWhat::yes
                             ? message + " (at " + location_text(where) + ")"
                             : message),
      where_(where) {}

std::string Error::location() const { return location_text(where_); }

InputError::InputError(std::string path, std::size_t line, std::size_t column, std::string field,
                       std::string reason, std::source_location where)
    : Error(format_input_error(path, line, column, field, reason), where),
      path_(std::move(path)),
      line_(line),
      column_(column),
      field_(std::move(field)),
      reason_(std::move(reason)) {}

}  // namespace fhmoe
