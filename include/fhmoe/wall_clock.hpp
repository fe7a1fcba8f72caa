#pragma once

// Wall-clock time since the Unix epoch, as results, races and journals record it. The wall
// clock (not steady_clock) because the times are compared across processes and read back
// from evidence archives; deadlines use steady_clock instead.

#include <chrono>
#include <cstdint>

namespace fhmoe {

inline std::int64_t unix_ns_now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

inline std::int64_t unix_seconds_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace fhmoe
