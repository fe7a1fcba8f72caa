#pragma once

// Facts about the machine the worker runs on, read from /proc and /sys.

#include <cstdint>
#include <string>

namespace fhmoe::worker {

std::string host_name();
// "model name" of the first CPU in /proc/cpuinfo ("unknown cpu" when absent).
std::string cpu_model_name();
// MemAvailable from /proc/meminfo, in bytes (0 when unreadable).
std::uint64_t memory_available_bytes();
// Size of the largest (last-level) cache cpu0 reports under /sys; 32 MiB when unreadable.
std::uint64_t last_level_cache_bytes();

}  // namespace fhmoe::worker
