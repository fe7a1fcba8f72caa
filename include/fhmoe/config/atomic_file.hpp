#pragma once

// Replacing a file so that a reader sees either the old contents or the new, never a mix,
// even across a crash or power loss: write a temporary file in the same directory (rename
// is only atomic within one file system), fsync it, rename it over the destination, fsync
// the directory so the rename itself is durable.
//
// On any failure before the rename the destination is untouched and the temporary file is
// removed. A failure of the final directory fsync is reported too (the new contents are in
// place, but their durability is unknown).

#include <functional>
#include <string>
#include <string_view>

namespace fhmoe::config {

// The new file keeps the destination's permission bits; a new destination gets
// 0666 & ~umask. `before_commit`, when given, runs after the data is durable and right
// before the rename; if it throws, nothing is replaced (a lock holder checks here that
// it still holds the lock).
// Throws FileError.
void write_file_atomically(const std::string& path, std::string_view contents,
                           const std::function<void()>& before_commit = {});

}  // namespace fhmoe::config
