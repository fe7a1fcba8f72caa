#pragma once

// The one operation a tuner uses to publish decisions: lock the tuned CSV, re-read it
// (another tuner may have written since this run planned), merge the decided rows
// (tuned_merge.hpp), write the result atomically (atomic_file.hpp), unlock.
//
// Nothing is written on any error: invalid decided rows (InternalError), a malformed
// current file (InputError naming path:line:column and field), a lock that stays held
// (LockTimeoutError), or an I/O failure (FileError) all leave the file as it was. The
// merged text is parsed back before it is written, so a file this writes always reads.

#include <chrono>
#include <cstddef>
#include <span>
#include <string>

#include "fhmoe/config/tuned_csv.hpp"

namespace fhmoe::config {

struct TunedCsvUpdate {
    std::size_t replaced = 0;
    std::size_t added = 0;
    std::size_t kept = 0;
    bool written = false;  // false when the merge changed no byte (the file is not touched)
};

TunedCsvUpdate update_tuned_csv(const std::string& path, std::span<const TunedRow> decided,
                                std::chrono::milliseconds lock_timeout);

}  // namespace fhmoe::config
