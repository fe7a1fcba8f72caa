#pragma once

// A file-system operation on a tuner's files failed (not the user's content: the system).

#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::config {

class FileError : public Error {
public:
    // what(): "path: what was attempted: strerror(error_number)" (the last part only when
    // error_number is not 0).
    FileError(const std::string& path, const std::string& action, int error_number);
};

}  // namespace fhmoe::config
