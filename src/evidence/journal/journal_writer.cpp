// Appending to a journal: one write(2) per flush, so a record is either wholly handed to the
// kernel or (if the process dies mid-write) a torn tail that the reader recognises.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "fhmoe/evidence/journal_reader.hpp"
#include "fhmoe/evidence/journal_writer.hpp"
#include "fhmoe/wall_clock.hpp"

namespace fhmoe::evidence {
namespace {

constexpr std::size_t kKeptBufferBytes = std::size_t{1} << 20;

[[noreturn]] void io_failure(const std::string& path, const std::string& what) {
    throw InputError(path, 0, 0, "journal", what + ": " + std::strerror(errno));
}

// Exit statuses after which a session's run is over (exit_code.hpp): every shape decided, or
// decided as far as it could be. The journal of any other end is for --resume.
bool is_finished_run(int exit_status) { return exit_status == 0 || exit_status == 1; }

std::string utc_stamp(std::int64_t unix_seconds) {
    return format_utc(unix_seconds, "%Y%m%dT%H%M%SZ");
}

}  // namespace

std::optional<std::string> keep_finished_journal(const std::string& path) {
    struct stat existing {};
    if (::stat(path.c_str(), &existing) != 0 || existing.st_size == 0) return std::nullopt;
    std::optional<SessionEndedRecord> last_ended;
    JournalTail tail;
    try {
        tail = for_each_journal_record(path, {}, [&](JournalRecord&& record) {
            if (auto* ended = std::get_if<SessionEndedRecord>(&record)) {
                last_ended = *ended;
            } else {
                last_ended.reset();
            }
        });
    } catch (const Error&) {
        return std::nullopt;  // unreadable: create() refuses, naming the file
    }
    if (tail.torn_tail_bytes > 0 || !last_ended || !is_finished_run(last_ended->exit_status)) {
        return std::nullopt;
    }
    const std::string stem = path + "." + utc_stamp(last_ended->finished_unix);
    std::string kept = stem;
    struct stat taken {};
    for (int n = 1; ::lstat(kept.c_str(), &taken) == 0; ++n) kept = stem + "." + std::to_string(n);
    if (::rename(path.c_str(), kept.c_str()) != 0) {
        io_failure(path, "cannot keep the finished run's journal as " + kept);
    }
    return kept;
}

JournalWriter::JournalWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

JournalWriter JournalWriter::create(const std::string& path, const RunHeader& header) {
    struct stat existing {};
    if (::stat(path.c_str(), &existing) == 0 && existing.st_size > 0) {
        throw InputError(path, 0, 0, "journal",
                         "a journal of an unfinished run already exists here (it was "
                         "interrupted, killed or could not write an output); pass --resume to "
                         "continue that run, or choose another --journal path");
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) io_failure(path, "cannot create the journal");
    JournalWriter writer(path, fd);
    writer.append(header);
    writer.flush();
    writer.sync();
    return writer;
}

JournalWriter JournalWriter::reopen(const std::string& path, const JournalContents& contents) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) io_failure(path, "cannot reopen the journal");
    if (contents.torn_tail_bytes > 0 &&
        ::ftruncate(fd, static_cast<off_t>(contents.valid_bytes)) != 0) {
        ::close(fd);
        io_failure(path, "cannot cut off the torn last record");
    }
    return JournalWriter(path, fd);
}

JournalWriter::JournalWriter(JournalWriter&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      buffer_(std::move(other.buffer_)),
      records_buffered_(std::exchange(other.records_buffered_, 0)),
      records_flushed_(other.records_flushed_) {}

JournalWriter& JournalWriter::operator=(JournalWriter&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        path_ = std::move(other.path_);
        fd_ = std::exchange(other.fd_, -1);
        buffer_ = std::move(other.buffer_);
        records_buffered_ = std::exchange(other.records_buffered_, 0);
        records_flushed_ = other.records_flushed_;
    }
    return *this;
}

JournalWriter::~JournalWriter() {
    if (fd_ < 0) return;
    try {
        flush();
    } catch (...) {
        // A destructor cannot report; the records stay unwritten and a resume re-measures.
    }
    ::close(fd_);
}

void JournalWriter::append(const JournalRecord& record) {
    const std::vector<std::uint8_t> frame = encode_journal_record(record);
    buffer_.insert(buffer_.end(), frame.begin(), frame.end());
    ++records_buffered_;
}

void JournalWriter::flush() {
    std::size_t written = 0;
    while (written < buffer_.size()) {
        const ssize_t n = ::write(fd_, buffer_.data() + written, buffer_.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            io_failure(path_, "cannot append to the journal");
        }
        written += static_cast<std::size_t>(n);
    }
    buffer_.clear();
    // The run header (86 MB for a night of two million candidates) is flushed first: its
    // buffer is not kept for the small records of the rest of the run.
    if (buffer_.capacity() > kKeptBufferBytes) std::vector<std::uint8_t>().swap(buffer_);
    records_flushed_ += records_buffered_;
    records_buffered_ = 0;
}

void JournalWriter::sync() {
    flush();
    if (::fsync(fd_) != 0) io_failure(path_, "cannot fsync the journal");
}

}  // namespace fhmoe::evidence
