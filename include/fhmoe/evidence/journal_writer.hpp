#pragma once

// Appending to a run journal (journal.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/evidence/journal_records.hpp"

namespace fhmoe::evidence {

struct JournalContents;  // journal_reader.hpp

// A new run into the same outputs (aiter's habit: `--compare --update_improved`, then `--all`)
// must not be blocked by the journal of a run that finished. When `path` holds a journal whose
// last record is a session_ended with exit status 0 or 1 (the run did what it could and wrote
// its outputs), it is renamed to `<path>.<finished UTC, YYYYmmddTHHMMSSZ>` (".1", ".2", ...
// appended if taken) and the new name returned: it stays evidence, and `--journal NEW
// --resume` still continues it. Anything else is left in place and nullopt returned: no file,
// an empty one, a journal that was interrupted (3), could not write an output (5), was killed
// (no session_ended) or cannot be read; JournalWriter::create then refuses as before, and
// --resume continues it.
std::optional<std::string> keep_finished_journal(const std::string& path);

// Appends records. Each append() is buffered; flush() hands the buffer to the kernel in one
// write (after which a kill of this process loses nothing), sync() also fsyncs it (after
// which a power loss loses nothing).
class JournalWriter {
public:
    // A new journal holding `header`. Refuses (InputError) to overwrite an existing non-empty
    // file: a journal is evidence, and reusing a path without --resume is a mistake.
    static JournalWriter create(const std::string& path, const RunHeader& header);
    // Continues a journal read by read_journal: the torn tail, if any, is cut off first.
    static JournalWriter reopen(const std::string& path, const JournalContents& contents);

    JournalWriter(JournalWriter&& other) noexcept;
    JournalWriter& operator=(JournalWriter&& other) noexcept;
    JournalWriter(const JournalWriter&) = delete;
    JournalWriter& operator=(const JournalWriter&) = delete;
    ~JournalWriter();  // flushes what is buffered

    void append(const JournalRecord& record);
    void flush();
    void sync();

    const std::string& path() const noexcept { return path_; }
    // Records handed to the kernel by this writer (the header included for a new journal).
    std::size_t records_flushed() const noexcept { return records_flushed_; }
    std::size_t records_buffered() const noexcept { return records_buffered_; }

private:
    JournalWriter(std::string path, int fd);
    std::string path_;
    int fd_ = -1;
    std::vector<std::uint8_t> buffer_;
    std::size_t records_buffered_ = 0;
    std::size_t records_flushed_ = 0;
};

}  // namespace fhmoe::evidence
