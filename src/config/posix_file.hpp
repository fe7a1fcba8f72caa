#pragma once

// Small POSIX helpers shared by the atomic write, the lock and the CSV reader: whole-buffer
// writes and whole-file reads that survive EINTR and short transfers, and path splitting.

#include <optional>
#include <string>
#include <string_view>

namespace fhmoe::config::detail {

// Writes all of `data`; returns 0 or the errno of the failure.
int write_all(int fd, std::string_view data);

// Appends everything up to end of file to `contents`; returns 0 or the errno of the failure.
// The caller still owns (and closes) `fd`.
int read_all(int fd, std::string& contents);

// fsync of the directory holding `path` (so a rename or link in it is durable); returns 0
// or the errno of the failure.
int sync_parent_directory(const std::string& path);

// The whole file, or nullopt when it does not exist; throws FileError on other failures.
std::optional<std::string> read_file_if_exists(const std::string& path);

std::string parent_directory(const std::string& path);  // "." for a bare file name
std::string base_name(const std::string& path);

}  // namespace fhmoe::config::detail
