#include "fhmoe/config/lock_owner.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <climits>
#include <vector>

#include <signal.h>
#include <unistd.h>

#include "config/posix_file.hpp"
#include "config/random_token.hpp"
#include "fhmoe/config/file_error.hpp"

namespace fhmoe::config {
namespace {

constexpr std::string_view kMagic = "fhmoe-tune lock v1";

// Field 3 of /proc/<pid>/stat is the state; field 22 the start time. Fields are counted
// from after the command name, which can itself hold spaces and parentheses.
constexpr std::size_t kStateIndexAfterComm = 0;
constexpr std::size_t kStartTimeIndexAfterComm = 19;

struct ProcessStat {
    char state = '?';
    std::uint64_t start_time = 0;
};

// /proc files of a process that exits while being read fail with ESRCH: as good as absent.
std::optional<std::string> read_small_file(const std::string& path) {
    try {
        return detail::read_file_if_exists(path);
    } catch (const FileError&) {
        return std::nullopt;
    }
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

std::optional<ProcessStat> read_process_stat(pid_t pid) {
    const auto content = read_small_file("/proc/" + std::to_string(pid) + "/stat");
    if (!content) return std::nullopt;
    const std::size_t comm_end = content->rfind(')');
    if (comm_end == std::string::npos) return std::nullopt;
    std::vector<std::string_view> fields;
    std::string_view rest = std::string_view(*content).substr(comm_end + 1);
    while (!rest.empty()) {
        const std::size_t start = rest.find_first_not_of(" \n");
        if (start == std::string_view::npos) break;
        rest.remove_prefix(start);
        const std::size_t end = rest.find_first_of(" \n");
        fields.push_back(rest.substr(0, end));
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
    }
    if (fields.size() <= kStartTimeIndexAfterComm) return std::nullopt;
    ProcessStat stat;
    stat.state = fields[kStateIndexAfterComm].empty() ? '?' : fields[kStateIndexAfterComm][0];
    const std::string_view start = fields[kStartTimeIndexAfterComm];
    const auto [stop, error] =
        std::from_chars(start.data(), start.data() + start.size(), stat.start_time);
    if (error != std::errc() || stop != start.data() + start.size()) return std::nullopt;
    return stat;
}

bool proc_is_mounted() { return read_small_file("/proc/self/stat").has_value(); }

struct HostIdentity {
    std::string host;
    std::string boot_id;
    std::string pid_namespace;
};

const HostIdentity& this_host() {
    static const HostIdentity identity = [] {
        HostIdentity id;
        std::array<char, HOST_NAME_MAX + 1> name{};
        if (::gethostname(name.data(), name.size() - 1) == 0) id.host = name.data();
        id.boot_id = trimmed(read_small_file("/proc/sys/kernel/random/boot_id").value_or(""));
        std::array<char, 256> link{};
        const ssize_t length = ::readlink("/proc/self/ns/pid", link.data(), link.size() - 1);
        if (length > 0) id.pid_namespace.assign(link.data(), static_cast<std::size_t>(length));
        return id;
    }();
    return identity;
}

bool pid_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

std::optional<std::string_view> value_of(std::string_view line, std::string_view key) {
    if (line.size() <= key.size() || !line.starts_with(key) || line[key.size()] != '=') {
        return std::nullopt;
    }
    return line.substr(key.size() + 1);
}

template <typename Number>
bool parse_number(std::string_view text, Number& out) {
    const auto [stop, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    return error == std::errc() && stop == text.data() + text.size();
}

}  // namespace

std::optional<std::uint64_t> process_start_time(pid_t pid) {
    const auto stat = read_process_stat(pid);
    if (!stat) return std::nullopt;
    return stat->start_time;
}

LockOwner current_lock_owner() {
    const HostIdentity& host = this_host();
    LockOwner owner;
    owner.pid = ::getpid();
    owner.host = host.host;
    owner.boot_id = host.boot_id;
    owner.pid_namespace = host.pid_namespace;
    owner.start_time = process_start_time(owner.pid).value_or(0);
    owner.nonce = detail::random_hex_token();
    return owner;
}

std::string format_lock_owner(const LockOwner& owner) {
    return std::string(kMagic) + "\npid=" + std::to_string(owner.pid) + "\nhost=" + owner.host +
           "\nboot_id=" + owner.boot_id + "\npid_namespace=" + owner.pid_namespace +
           "\nstart_time=" + std::to_string(owner.start_time) + "\nnonce=" + owner.nonce + "\n";
}

std::optional<LockOwner> parse_lock_owner(std::string_view content) {
    std::vector<std::string_view> lines;
    while (!content.empty()) {
        const std::size_t end = content.find('\n');
        if (end == std::string_view::npos) return std::nullopt;  // always newline-terminated
        lines.push_back(content.substr(0, end));
        content.remove_prefix(end + 1);
    }
    if (lines.size() != 7 || lines[0] != kMagic) return std::nullopt;
    LockOwner owner;
    const auto pid = value_of(lines[1], "pid");
    const auto host = value_of(lines[2], "host");
    const auto boot_id = lines[3] == "boot_id=" ? std::optional<std::string_view>("")
                                                : value_of(lines[3], "boot_id");
    const auto pid_namespace = lines[4] == "pid_namespace=" ? std::optional<std::string_view>("")
                                                            : value_of(lines[4], "pid_namespace");
    const auto start_time = value_of(lines[5], "start_time");
    const auto nonce = value_of(lines[6], "nonce");
    if (!pid || !host || !boot_id || !pid_namespace || !start_time || !nonce) return std::nullopt;
    if (!parse_number(*pid, owner.pid) || owner.pid <= 0) return std::nullopt;
    if (!parse_number(*start_time, owner.start_time)) return std::nullopt;
    owner.host = *host;
    owner.boot_id = *boot_id;
    owner.pid_namespace = *pid_namespace;
    owner.nonce = *nonce;
    return owner;
}

std::string describe_lock_holder(const std::optional<LockOwner>& holder) {
    if (!holder) return "an unreadable holder (not an fhmoe-tune lock file)";
    return "pid " + std::to_string(holder->pid) + " on host " + holder->host;
}

HolderJudgement judge_lock_holder(const std::optional<LockOwner>& holder) {
    if (!holder) {
        return {HolderVerdict::unreadable,
                "the lock file is not an fhmoe-tune lock; it is never broken automatically"};
    }
    const HostIdentity& here = this_host();
    const std::string pid = "pid " + std::to_string(holder->pid);
    if (holder->host != here.host) {
        return {HolderVerdict::other_host,
                "held on another host (" + holder->host +
                    "), whose processes cannot be checked from here; it is never broken "
                    "automatically"};
    }
    if (holder->pid_namespace != here.pid_namespace) {
        return {HolderVerdict::other_host,
                "held from another pid namespace (" + holder->pid_namespace +
                    ") on this host, whose processes cannot be checked from here; it is never "
                    "broken automatically"};
    }
    if (holder->boot_id != here.boot_id) {
        return {HolderVerdict::stale, "the host has rebooted since " + pid + " took the lock"};
    }
    if (!proc_is_mounted()) {
        if (pid_exists(holder->pid)) return {HolderVerdict::alive, pid + " is running"};
        return {HolderVerdict::stale, pid + " has exited"};
    }
    const auto stat = read_process_stat(holder->pid);
    if (!stat) return {HolderVerdict::stale, pid + " has exited"};
    if (stat->state == 'Z' || stat->state == 'X') {
        return {HolderVerdict::stale, pid + " has exited (a zombie not yet reaped)"};
    }
    if (stat->start_time != holder->start_time) {
        return {HolderVerdict::stale, pid +
                                          " has exited and its pid now belongs to another "
                                          "process (different start time)"};
    }
    return {HolderVerdict::alive, pid + " is running"};
}

}  // namespace fhmoe::config
