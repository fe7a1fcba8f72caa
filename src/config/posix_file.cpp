#include "config/posix_file.hpp"

#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

#include "fhmoe/config/file_error.hpp"

namespace fhmoe::config::detail {

int write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t wrote = ::write(fd, data.data(), data.size());
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote < 0) return errno;
        data.remove_prefix(static_cast<std::size_t>(wrote));
    }
    return 0;
}

int read_all(int fd, std::string& contents) {
    char buffer[1 << 16];
    while (true) {
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno;
        if (got == 0) return 0;
        contents.append(buffer, static_cast<std::size_t>(got));
    }
}

int sync_parent_directory(const std::string& path) {
    const int fd = ::open(parent_directory(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno;
    const int result = ::fsync(fd) == 0 ? 0 : errno;
    ::close(fd);
    return result;
}

std::optional<std::string> read_file_if_exists(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return std::nullopt;
    if (fd < 0) throw FileError(path, "opening", errno);
    std::string contents;
    const int error = read_all(fd, contents);
    ::close(fd);
    if (error != 0) throw FileError(path, "reading", error);
    return contents;
}

std::string parent_directory(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string base_name(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace fhmoe::config::detail
