#pragma once

// The process's peak resident memory (VmHWM of /proc/self/status), which rank 0 logs at the
// end of a run: what it costs to hold a night's state is then visible in every job log, and
// bench/rank0_memory.sh reads it from there (docs/performance.md).

#include <cstdint>
#include <optional>

namespace fhmoe::cluster {

// KiB, or nullopt where /proc/self/status has no VmHWM line (not Linux).
std::optional<std::int64_t> peak_resident_kib();

}  // namespace fhmoe::cluster
