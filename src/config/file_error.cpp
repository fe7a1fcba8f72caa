#include "fhmoe/config/file_error.hpp"

#include <cstring>

namespace fhmoe::config {
namespace {

std::string describe(const std::string& path, const std::string& action, int error_number) {
    std::string text = path + ": " + action;
    if (error_number != 0) text += std::string(": ") + std::strerror(error_number);
    return text;
}

}  // namespace

FileError::FileError(const std::string& path, const std::string& action, int error_number)
    : Error(describe(path, action, error_number)) {}

}  // namespace fhmoe::config
