#include "fhmoe/config/file_lock.hpp"

#include <algorithm>
#include <cerrno>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/posix_file.hpp"
#include "config/random_token.hpp"
#include "fhmoe/config/file_error.hpp"

namespace fhmoe::config {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kFirstBackoff{1};
constexpr milliseconds kLongestBackoff{50};

std::string timeout_message(const std::string& lock_path, const std::optional<LockOwner>& holder,
                            const HolderJudgement& judgement, milliseconds waited) {
    std::string text = lock_path + ": held by " + describe_lock_holder(holder) +
                       "; gave up after " + std::to_string(waited.count()) + " ms (" +
                       judgement.reason + ")";
    if (judgement.verdict != HolderVerdict::alive) {
        text += "; if no process holds it any more, delete " + lock_path + " by hand";
    }
    return text;
}

// The holder's content, written completely and durably before it becomes the lock, so the
// lock can never be observed empty or partial. Removed when the acquisition ends.
class LockContentFile {
public:
    LockContentFile(std::string path, const std::string& content) : path_(std::move(path)) {
        const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0) throw FileError(path_, "creating the lock's content file", errno);
        created_ = true;
        int error = detail::write_all(fd, content);
        if (error == 0 && ::fsync(fd) != 0) error = errno;
        if (::close(fd) != 0 && error == 0) error = errno;
        if (error != 0) {
            ::unlink(path_.c_str());
            created_ = false;
            throw FileError(path_, "writing the lock's content", error);
        }
    }
    LockContentFile(const LockContentFile&) = delete;
    LockContentFile& operator=(const LockContentFile&) = delete;
    ~LockContentFile() {
        if (created_) ::unlink(path_.c_str());
    }

    // link(2) the content to `lock_path`: true when this process now holds the lock.
    bool link_as(const std::string& lock_path) const {
        if (::link(path_.c_str(), lock_path.c_str()) == 0) return true;
        const int error = errno;
        if (error == EEXIST) return false;
        // Over NFS a link can succeed while its reply is lost; the link count tells.
        struct stat info {};
        if (::stat(path_.c_str(), &info) == 0 && info.st_nlink == 2) return true;
        throw FileError(lock_path, "creating the lock", error);
    }

private:
    std::string path_;
    bool created_ = false;
};

// Serializes breakers of one lock. The kernel drops an flock when its holder dies, so a
// crashed breaker can never wedge the others.
class BreakGuard {
public:
    explicit BreakGuard(const std::string& path) {
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd_ < 0) throw FileError(path, "opening the lock's break guard", errno);
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            const int error = errno;
            ::close(fd_);
            throw FileError(path, "locking the lock's break guard", error);
        }
    }
    BreakGuard(const BreakGuard&) = delete;
    BreakGuard& operator=(const BreakGuard&) = delete;
    ~BreakGuard() { ::close(fd_); }  // closing drops the flock

private:
    int fd_ = -1;
};

// Removes the lock if it still is exactly `judged_stale`. Returns without breaking when it
// changed (released, broken by someone else, or re-taken): the caller looks again.
void break_if_still_stale(const std::string& lock_path, const std::string& judged_stale) {
    const BreakGuard guard(lock_path + ".break");
    const auto current = detail::read_file_if_exists(lock_path);
    if (!current || *current != judged_stale) return;
    const HolderJudgement judgement = judge_lock_holder(parse_lock_owner(*current));
    if (judgement.verdict != HolderVerdict::stale) return;

    const std::string moved = lock_path + ".stale." + detail::random_hex_token();
    if (::rename(lock_path.c_str(), moved.c_str()) != 0) {
        if (errno == ENOENT) return;
        throw FileError(lock_path, "moving a stale lock aside", errno);
    }
    const auto moved_content = detail::read_file_if_exists(moved);
    if (!moved_content || *moved_content != judged_stale) {
        // Only a process outside this protocol can change the lock under the guard: put
        // back what was moved rather than remove a lock that may be live.
        ::link(moved.c_str(), lock_path.c_str());
        ::unlink(moved.c_str());
        throw FileError(lock_path,
                        "the lock changed while a stale holder was being removed; "
                        "it was put back untouched",
                        0);
    }
    ::unlink(moved.c_str());
    spdlog::warn("{}: removed a stale lock of {} ({})", lock_path,
                 describe_lock_holder(parse_lock_owner(judged_stale)), judgement.reason);
}

}  // namespace

LockTimeoutError::LockTimeoutError(const std::string& lock_path, std::optional<LockOwner> holder,
                                   const HolderJudgement& judgement, milliseconds waited)
    : Error(timeout_message(lock_path, holder, judgement, waited)), holder_(std::move(holder)) {}

std::string lock_path_for(const std::string& guarded_path) { return guarded_path + ".lock"; }

FileLock::FileLock(std::string lock_path, LockOwner owner)
    : lock_path_(std::move(lock_path)), owner_(std::move(owner)), held_(true) {}

FileLock FileLock::acquire(const std::string& guarded_path, milliseconds timeout) {
    const std::string lock_path = lock_path_for(guarded_path);
    LockOwner owner = current_lock_owner();
    const std::string content = format_lock_owner(owner);
    const LockContentFile content_file(lock_path + "." + owner.nonce + ".tmp", content);

    const auto deadline = std::chrono::steady_clock::now() + timeout;
    milliseconds backoff = kFirstBackoff;
    while (true) {
        if (content_file.link_as(lock_path)) return FileLock(lock_path, std::move(owner));
        const auto seen = detail::read_file_if_exists(lock_path);
        if (!seen) continue;  // released between the link and the read
        const std::optional<LockOwner> holder = parse_lock_owner(*seen);
        const HolderJudgement judgement = judge_lock_holder(holder);
        if (judgement.verdict == HolderVerdict::stale) {
            // The holder may have released the lock and exited between the read above and
            // the judgement: its content was read while it still held the lock, and it was
            // judged after it had gone, so the judgement alone does not make the lock stale.
            // Only a lock that still holds that content after its holder was found gone
            // was left behind by a dead holder; breaking anything else would take the break
            // guard (and leave `<lock>.break` behind) for a lock that was released cleanly.
            if (detail::read_file_if_exists(lock_path) == seen) {
                break_if_still_stale(lock_path, *seen);
            }
            continue;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) throw LockTimeoutError(lock_path, holder, judgement, timeout);
        const auto remaining = std::chrono::duration_cast<milliseconds>(deadline - now);
        std::this_thread::sleep_for(std::min(backoff, remaining + milliseconds(1)));
        backoff = std::min(backoff * 2, kLongestBackoff);
    }
}

FileLock::FileLock(FileLock&& other) noexcept
    : lock_path_(std::move(other.lock_path_)),
      owner_(std::move(other.owner_)),
      held_(std::exchange(other.held_, false)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        release_quietly();
        lock_path_ = std::move(other.lock_path_);
        owner_ = std::move(other.owner_);
        held_ = std::exchange(other.held_, false);
    }
    return *this;
}

FileLock::~FileLock() { release_quietly(); }

void FileLock::release_quietly() noexcept {
    if (!held_ || ::getpid() != owner_.pid) return;
    try {
        release();
    } catch (const std::exception& error) {
        spdlog::warn("{}", error.what());
    }
}

void FileLock::verify_held() const {
    if (!held_) throw FileError(lock_path_, "the lock was already released", 0);
    check_still_ours();
}

void FileLock::check_still_ours() const {
    const auto current = detail::read_file_if_exists(lock_path_);
    if (!current || *current != format_lock_owner(owner_)) {
        throw FileError(lock_path_,
                        "this process no longer holds the lock (the lock file was "
                        "removed or replaced by someone else)",
                        0);
    }
}

void FileLock::release() {
    if (!held_) return;
    held_ = false;
    check_still_ours();
    if (::unlink(lock_path_.c_str()) != 0 && errno != ENOENT) {
        throw FileError(lock_path_, "removing the lock", errno);
    }
}

}  // namespace fhmoe::config
