#pragma once

// The project's typed errors. Library code throws them; only the thin mains in src/app
// map them to exit codes (see exit_code.hpp). One CHECK macro per error source, carrying
// file:line of the check, in the style of Ginkgo.

#include <cstddef>
#include <source_location>
#include <stdexcept>
#include <string>

namespace fhmoe {

// Base of every error the project throws on purpose.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message,
                   std::source_location where = std::source_location::current())
        : std::runtime_error(message), where_(where) {}
    const std::source_location& where() const noexcept { return where_; }

private:
    std::source_location where_;
};

// Bad input from a user's file or flag. It names the file, the line and the field so the
// user can fix it; the mains map it to exit code 2 and write nothing.
//   what(): "path:line:column: field 'name': reason" (line/column omitted when 0)
class InputError : public Error {
public:
    InputError(std::string path, std::size_t line, std::size_t column, std::string field,
               std::string reason, std::source_location where = std::source_location::current());

    const std::string& path() const noexcept { return path_; }
    std::size_t line() const noexcept { return line_; }
    std::size_t column() const noexcept { return column_; }
    const std::string& field() const noexcept { return field_; }
    const std::string& reason() const noexcept { return reason_; }

private:
    std::string path_;
    std::size_t line_;
    std::size_t column_;
    std::string field_;
    std::string reason_;
};

// A value that does not parse (an unknown status name, a malformed kernel name). Callers
// that know the file and line re-throw it as InputError.
class ParseError : public Error {
public:
    using Error::Error;
};

// A broken internal invariant: a bug in fhmoe-tune, never the user's fault.
class InternalError : public Error {
public:
    using Error::Error;
};

}  // namespace fhmoe

// FHMOE_CHECK(cond, message): throws InternalError naming the failed condition.
#define FHMOE_CHECK(cond, message)                                                              \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            throw ::fhmoe::InternalError(std::string("check failed: " #cond ": ") + (message)); \
        }                                                                                       \
    } while (false)
