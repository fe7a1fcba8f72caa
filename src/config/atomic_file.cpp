#include "fhmoe/config/atomic_file.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/posix_file.hpp"
#include "config/random_token.hpp"
#include "fhmoe/config/file_error.hpp"

namespace fhmoe::config {
namespace {

// Removes the temporary file unless the rename consumed it.
class TemporaryFile {
public:
    explicit TemporaryFile(std::string path) : path_(std::move(path)) {}
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;
    ~TemporaryFile() {
        if (fd_ >= 0) ::close(fd_);
        if (!committed_) ::unlink(path_.c_str());
    }

    const std::string& path() const { return path_; }
    int fd() const { return fd_; }
    void set_fd(int fd) { fd_ = fd; }
    int close_fd() {
        const int result = ::close(fd_) == 0 ? 0 : errno;
        fd_ = -1;
        return result;
    }
    void mark_committed() { committed_ = true; }

private:
    std::string path_;
    int fd_ = -1;
    bool committed_ = false;
};

}  // namespace

void write_file_atomically(const std::string& path, std::string_view contents,
                           const std::function<void()>& before_commit) {
    // A leading dot keeps tools that glob "*.csv" from picking up a half-written file.
    TemporaryFile temporary(detail::parent_directory(path) + "/." + detail::base_name(path) +
                            ".tmp." + detail::random_hex_token());
    const int fd = ::open(temporary.path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw FileError(temporary.path(), "creating the temporary file", errno);
    temporary.set_fd(fd);

    struct stat destination {};
    if (::stat(path.c_str(), &destination) == 0 && ::fchmod(fd, destination.st_mode & 07777) != 0) {
        throw FileError(temporary.path(), "copying the destination's permissions", errno);
    }
    if (const int error = detail::write_all(fd, contents)) {
        throw FileError(temporary.path(), "writing", error);
    }
    if (::fsync(fd) != 0) throw FileError(temporary.path(), "syncing", errno);
    if (const int error = temporary.close_fd()) {
        throw FileError(temporary.path(), "closing", error);
    }
    if (before_commit) before_commit();
    if (::rename(temporary.path().c_str(), path.c_str()) != 0) {
        throw FileError(path, "renaming " + temporary.path() + " over it", errno);
    }
    temporary.mark_committed();
    if (const int error = detail::sync_parent_directory(path)) {
        throw FileError(path, "replaced, but syncing its directory failed", error);
    }
}

}  // namespace fhmoe::config
