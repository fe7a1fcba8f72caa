#include "fhmoe/evidence/archive_leftovers.hpp"

#include <signal.h>

#include <cerrno>
#include <charconv>
#include <filesystem>

namespace fhmoe::evidence {
namespace {

// kill(pid, 0) fails with ESRCH only when no such process exists; EPERM means it exists.
bool process_is_gone(long pid) {
    if (pid <= 0) return false;
    return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::vector<std::string> remove_dead_writers_temporaries(const std::string& archive_path) {
    namespace fs = std::filesystem;
    std::vector<std::string> removed;
    const fs::path archive(archive_path);
    fs::path directory = archive.parent_path();
    if (directory.empty()) directory = ".";
    const std::string prefix = archive.filename().string() + ".tmp.";
    std::error_code error;
    for (fs::directory_iterator it(directory, error), end; !error && it != end;
         it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string_view digits(name.data() + prefix.size(), name.size() - prefix.size());
        long pid = 0;
        const auto [end_of_number, parse_error] =
            std::from_chars(digits.data(), digits.data() + digits.size(), pid);
        if (parse_error != std::errc() || end_of_number != digits.data() + digits.size()) continue;
        if (!process_is_gone(pid)) continue;
        std::error_code ignored;
        if (it->is_regular_file(ignored) && fs::remove(it->path(), ignored)) {
            removed.push_back(it->path().string());
        }
    }
    return removed;
}

}  // namespace fhmoe::evidence
