#include "fhmoe/config/path_checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "config/posix_file.hpp"
#include "config/random_token.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/text_excerpt.hpp"

namespace fhmoe::config {
namespace {

[[noreturn]] void refuse(const FlagPath& file, const std::string& reason) {
    throw InputError(file.path, 0, 0, file.flag, reason);
}

std::string system_reason(int error_number) { return std::strerror(error_number); }

// stat() of the path (symlinks followed); nullopt when nothing is there.
std::optional<struct stat> status_of(const FlagPath& file) {
    struct stat info {};
    if (::stat(file.path.c_str(), &info) == 0) return info;
    if (errno == ENOENT) return std::nullopt;
    refuse(file, "cannot look at it: " + system_reason(errno));
}

void require_regular(const FlagPath& file, const struct stat& info) {
    if (S_ISDIR(info.st_mode)) refuse(file, "is a directory, not a file");
    if (!S_ISREG(info.st_mode)) refuse(file, "is not a regular file");
}

void require_opens(const FlagPath& file, int flags, const char* as) {
    const int fd = ::open(file.path.c_str(), flags | O_CLOEXEC);
    if (fd < 0) refuse(file, std::string("cannot be opened ") + as + ": " + system_reason(errno));
    ::close(fd);
}

// Creates and removes a file of a fresh name in `directory`: the only answer that holds for
// root, for read-only mounts and for network file systems alike.
void require_writable_directory(const FlagPath& file, const std::string& directory) {
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0) {
        refuse(file, "its directory '" + excerpt(directory, kPathExcerptChars) +
                         "' does not exist or cannot be reached: " + system_reason(errno));
    }
    if (!S_ISDIR(info.st_mode)) {
        refuse(file, "'" + excerpt(directory, kPathExcerptChars) + "' is not a directory");
    }
    const std::string probe = directory + "/.fhmoe-write-probe." + detail::random_hex_token();
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        refuse(file, "cannot create a file in its directory '" +
                         excerpt(directory, kPathExcerptChars) + "': " + system_reason(errno));
    }
    ::close(fd);
    ::unlink(probe.c_str());
}

// What makes two paths the same file: the inode when the file exists, else the resolved path.
struct FileIdentity {
    bool exists = false;
    dev_t device = 0;
    ino_t inode = 0;
    std::string resolved;

    bool same_as(const FileIdentity& other) const {
        if (exists != other.exists) return false;
        if (exists) return device == other.device && inode == other.inode;
        return resolved == other.resolved;
    }
};

FileIdentity identity_of(const FlagPath& file) {
    FileIdentity identity;
    struct stat info {};
    if (::stat(file.path.c_str(), &info) == 0) {
        identity.exists = true;
        identity.device = info.st_dev;
        identity.inode = info.st_ino;
        return identity;
    }
    std::error_code error;
    const auto absolute = std::filesystem::absolute(file.path, error);
    const auto resolved = error ? std::filesystem::path(file.path)
                                : std::filesystem::weakly_canonical(absolute, error);
    identity.resolved = error ? absolute.lexically_normal().string() : resolved.string();
    return identity;
}

[[noreturn]] void refuse_same(const FlagPath& first, const FlagPath& second) {
    std::string reason = "names the same file as " + second.flag;
    if (second.path != first.path) reason += " ('" + excerpt(second.path, kPathExcerptChars) + "')";
    reason += ": one would overwrite the other";
    refuse(first, reason);
}

}  // namespace

void check_input_file(const FlagPath& input) {
    const auto info = status_of(input);
    if (!info) refuse(input, "does not exist");
    require_regular(input, *info);
    require_opens(input, O_RDONLY, "for reading");
}

void check_input_file_if_exists(const FlagPath& input) {
    if (status_of(input)) check_input_file(input);
}

void check_output_file(const FlagPath& output) {
    if (output.path.empty()) refuse(output, "is empty");
    if (const auto info = status_of(output)) require_regular(output, *info);
    require_writable_directory(output, detail::parent_directory(output.path));
}

void check_appendable_file(const FlagPath& output) {
    check_input_file(output);
    require_opens(output, O_WRONLY | O_APPEND, "for appending");
}

void check_executable_file(const FlagPath& program) {
    const auto info = status_of(program);
    if (!info) refuse(program, "does not exist");
    require_regular(program, *info);
    // X_OK is true for root when any execute bit is set, which is also when exec() works.
    if (::access(program.path.c_str(), X_OK) != 0) {
        refuse(program, "is not executable: " + system_reason(errno));
    }
}

void check_distinct_files(const std::vector<FlagPath>& outputs,
                          const std::vector<FlagPath>& inputs) {
    std::vector<FileIdentity> output_ids;
    for (const FlagPath& output : outputs) output_ids.push_back(identity_of(output));
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (output_ids[i].same_as(output_ids[j])) refuse_same(outputs[i], outputs[j]);
        }
    }
    for (const FlagPath& input : inputs) {
        const FileIdentity input_id = identity_of(input);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
            if (output_ids[i].same_as(input_id)) refuse_same(outputs[i], input);
        }
    }
}

}  // namespace fhmoe::config
