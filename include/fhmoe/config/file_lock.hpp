#pragma once

// The lock that serializes writers of one tuned CSV (several tuners, on one host or on
// several hosts sharing a file system). It fixes the weaknesses of aiter's FileBaton
// (reference section 8 and 10.17).
//
// The rules:
//  1. The lock of `<csv>` is the file `<csv>.lock`; whoever created it holds it. Its content
//     names the holder (lock_owner.hpp: pid, host, boot id, pid namespace, the process's
//     start time, a random nonce).
//  2. Taking it: the content is first written and fsynced to a uniquely named file
//     `<csv>.lock.<nonce>.tmp` (O_CREAT|O_EXCL), which is then link(2)ed to `<csv>.lock`.
//     link fails with EEXIST when the lock is held, and otherwise makes the complete content
//     appear at once. So a lock file is never seen empty or half written, and a failure while
//     writing the content leaves no lock at all (FileBaton leaves an empty live lock that
//     looks stale after 10 s). link is also the primitive that is atomic on NFS.
//  3. Judging a holder (judge_lock_holder): on this host, boot and pid namespace, a holder
//     whose pid is gone, is a zombie, or now has another start time (pid reuse) is stale.
//     A holder on another host, in another pid namespace, or a file that is not an fhmoe
//     lock cannot be judged and is never broken: the waiter gives up at its timeout with a
//     LockTimeoutError naming the holder, and a person decides.
//  4. Breaking a stale lock: under an flock(2) on `<csv>.lock.break` (the kernel drops it
//     when its holder dies, so nothing can be wedged by a crash, unlike FileBaton's
//     `.steal` file), the breaker re-reads the lock, checks it is byte-identical to the
//     content it judged stale, renames it to `<csv>.lock.stale.<nonce>` (so it cannot
//     remove a lock taken in the meantime by someone else), verifies the renamed content
//     once more and deletes it; then it tries to take the lock again. `<csv>.lock.break`
//     stays in place, empty; its existence means nothing. A lock counts as stale only when
//     it still holds the judged content after its holder was found gone: a holder that
//     released the lock and then exited while a waiter was judging it left nothing to break,
//     and the waiter then takes no guard and leaves no `.break` file.
//  5. Releasing: the holder deletes `<csv>.lock` only if it still holds its own content; if
//     not (someone removed or replaced it by hand), release reports the lost lock.
//  6. Waiting polls with a backoff of 1 ms doubling to 50 ms, until the timeout.

#include <chrono>
#include <optional>
#include <string>

#include "fhmoe/config/lock_owner.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::config {

// The lock stayed held by someone else until the timeout.
class LockTimeoutError : public Error {
public:
    LockTimeoutError(const std::string& lock_path, std::optional<LockOwner> holder,
                     const HolderJudgement& judgement, std::chrono::milliseconds waited);
    const std::optional<LockOwner>& holder() const noexcept { return holder_; }

private:
    std::optional<LockOwner> holder_;
};

std::string lock_path_for(const std::string& guarded_path);  // "<path>.lock"

// Holds the lock of one file while it lives (RAII). Movable, not copyable.
class FileLock {
public:
    // Takes the lock of `guarded_path`, waiting at most `timeout` (zero: one attempt, plus
    // breaking a stale lock). Throws LockTimeoutError, or FileError when the lock cannot be
    // created at all (e.g. the directory is not writable).
    static FileLock acquire(const std::string& guarded_path, std::chrono::milliseconds timeout);

    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    // Releases; a failure is logged, never thrown. A forked child that inherited the object
    // never releases its parent's lock.
    ~FileLock();

    // Throws FileError when the lock file no longer holds this lock's content.
    void verify_held() const;
    // Releases now (idempotent); throws FileError when the lock had been lost.
    void release();

    const std::string& lock_path() const noexcept { return lock_path_; }
    const LockOwner& owner() const noexcept { return owner_; }
    bool held() const noexcept { return held_; }

private:
    FileLock(std::string lock_path, LockOwner owner);
    void check_still_ours() const;
    void release_quietly() noexcept;  // for the destructor and move assignment

    std::string lock_path_;
    LockOwner owner_;
    bool held_ = false;
};

}  // namespace fhmoe::config
