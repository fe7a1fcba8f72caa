#pragma once

// Wall-clock time since the Unix epoch, as results, races and journals record it. The wall
// clock (not steady_clock) because the times are compared across processes and read back
// from evidence archives; deadlines use steady_clock instead.

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>

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

// unix_seconds as UTC in a strftime format (journal names, reports).
inline std::string format_utc(std::int64_t unix_seconds, const char* strftime_format) {
    const auto time = static_cast<std::time_t>(unix_seconds);
    std::tm parts{};
    gmtime_r(&time, &parts);
    char text[64];
    const std::size_t length = std::strftime(text, sizeof text, strftime_format, &parts);
    return std::string(text, length);
}

}  // namespace fhmoe
