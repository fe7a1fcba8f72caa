#pragma once

// The project's typed errors. Library code throws them; only the thin mains in src/app
// map them to exit codes (see exit_code.hpp). One CHECK macro per error source, carrying
// file:line of the check, in the style of Ginkgo.

#include <cstddef>
#include <source_location>
#include <stdexcept>
#include <string>

namespace fhmoe {

// Base of every error the project throws on purpose. It records where it was raised (the
// source_location default argument is evaluated at the throw site).
//
// what() carries that file:line only for InternalError. Every other error's what() is text
// for a user or for a record: exit-2 messages name the user's file and flag, and a candidate's
// unsupported or failure reason is stored in the journal, the archive and the CSV, where a
// line number of fhmoe's source would be noise and would make evidence differ between two
// revisions of the same code. Logs that want the place of any error use location().
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message,
                   std::source_location where = std::source_location::current())
        : Error(message, where, WhereInWhat::no) {}
    const std::source_location& where() const noexcept { return where_; }
    // "src/cluster/coordinator.cpp:74": the file relative to the project's source tree when
    // it was compiled inside it, else as the compiler named it.
    std::string location() const;

protected:
    enum class WhereInWhat { no, yes };
    Error(const std::string& message, std::source_location where, WhereInWhat where_in_what);

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

// A broken internal invariant: a bug in fhmoe-tune, never the user's fault. what() ends with
// " (at src/file.cpp:line)": whoever reads the bug report needs the place, and no user fixes
// anything from this message.
class InternalError : public Error {
public:
    explicit InternalError(const std::string& message,
                           std::source_location where = std::source_location::current())
        : Error(message, where, WhereInWhat::yes) {}
};

}  // namespace fhmoe

// FHMOE_CHECK(cond, message): throws InternalError naming the failed condition.
#define FHMOE_CHECK(cond, message)                                                              \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            throw ::fhmoe::InternalError(std::string("check failed: " #cond ": ") + (message)); \
        }                                                                                       \
    } while (false)
