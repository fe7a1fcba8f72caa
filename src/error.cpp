#include "fhmoe/error.hpp"

#include <utility>

#include "fhmoe/text_excerpt.hpp"

namespace fhmoe {
namespace {

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

InputError::InputError(std::string path, std::size_t line, std::size_t column, std::string field,
                       std::string reason, std::source_location where)
    : Error(format_input_error(path, line, column, field, reason), where),
      path_(std::move(path)),
      line_(line),
      column_(column),
      field_(std::move(field)),
      reason_(std::move(reason)) {}

}  // namespace fhmoe
