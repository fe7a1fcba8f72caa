#pragma once

// The terminal outcome of one candidate (DESIGN.md section 2). The names are part of the
// journal, the HDF5 archive and the CLI: they never change.

#include <array>
#include <cstdint>
#include <string_view>

namespace fhmoe::tuning {

enum class Status : std::uint8_t {
    ok = 0,             // ran, matched the reference within errRatio, timed
    mismatch = 1,       // ran, output failed the accuracy check (fast-wrong never wins)
    unsupported = 2,    // cannot run this shape or device (tile, LDS, register or arch limits)
    crash = 3,          // the worker died or hit a device fault while running it
    timeout = 4,        // passed its deadline; the worker was killed
    oom_runtime = 5,    // an allocation failed while running it
    oom_preflight = 6,  // estimated memory exceeds what the device has free: never launched
    not_run = 7,        // never ran (behind a fault, or the run stopped); a resume retries it
};

constexpr Status last_enumerator(Status) noexcept { return Status::not_run; }

inline constexpr std::array<Status, 8> all_statuses = {
    Status::ok,      Status::mismatch,    Status::unsupported,   Status::crash,
    Status::timeout, Status::oom_runtime, Status::oom_preflight, Status::not_run};

// "ok", "mismatch", ... exactly as in DESIGN.md.
std::string_view to_string(Status status) noexcept;

// Inverse of to_string; throws fhmoe::ParseError naming the unknown text and the valid names.
Status status_from_string(std::string_view text);

// Every status but not_run is terminal: a resume never re-measures a terminal candidate.
constexpr bool is_terminal(Status status) noexcept { return status != Status::not_run; }

}  // namespace fhmoe::tuning
