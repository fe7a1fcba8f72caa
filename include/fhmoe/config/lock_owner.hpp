#pragma once

// Who holds a lock file, and whether that holder can still be alive. This is the evidence
// the lock (file_lock.hpp) uses to decide whether a lock may be broken; it is public so
// tools and tests can write and inspect lock files.
//
// A lock file's content (text, one key=value a line after a magic first line):
//   fhmoe-tune lock v1
//   pid=12345
//   host=node017
//   boot_id=<the kernel's /proc/sys/kernel/random/boot_id>
//   pid_namespace=<readlink /proc/self/ns/pid, e.g. pid:[4026531836]>
//   start_time=<field 22 of /proc/<pid>/stat: clock ticks after boot>
//   nonce=<32 random hex digits>
// pid alone is not an identity: pids are reused, so the start time distinguishes the
// holder from a later process with its pid, and the boot id a holder from before a reboot.
// The nonce makes every acquisition's content unique, so "is this still the lock I saw?"
// is a byte comparison.

#include <sys/types.h>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fhmoe::config {

struct LockOwner {
    pid_t pid = 0;
    std::string host;
    std::string boot_id;
    std::string pid_namespace;
    std::uint64_t start_time = 0;
    std::string nonce;

    bool operator==(const LockOwner&) const = default;
};

// This process, with a fresh nonce.
LockOwner current_lock_owner();

std::string format_lock_owner(const LockOwner& owner);
// nullopt when `content` is not exactly what format_lock_owner writes.
std::optional<LockOwner> parse_lock_owner(std::string_view content);

enum class HolderVerdict {
    alive,       // same host, boot and pid namespace; the process runs, same start time
    stale,       // same host: the holder is gone (see `reason`); safe to break
    other_host,  // another host (or pid namespace): cannot be judged, never broken
    unreadable,  // the file is not an fhmoe lock: never broken
};

struct HolderJudgement {
    HolderVerdict verdict = HolderVerdict::unreadable;
    std::string reason;  // why, in words, e.g. "pid 123 has exited"
};

// Stale when, on this host and boot: the pid does not exist, is a zombie (exited but not
// reaped: it will never release), or runs with another start time (the pid was reused);
// or when the holder's boot id differs from this host's (every process of that boot is gone).
HolderJudgement judge_lock_holder(const std::optional<LockOwner>& holder);

// "pid 12345 on host node017" (or a note that the content is unreadable).
std::string describe_lock_holder(const std::optional<LockOwner>& holder);

// Field 22 of /proc/<pid>/stat; nullopt when the process does not exist or /proc is absent.
std::optional<std::uint64_t> process_start_time(pid_t pid);

}  // namespace fhmoe::config
