#pragma once

// Reading a run journal (journal.hpp) under its rules: a torn tail is reported and ignored,
// corruption in the middle is an error.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "fhmoe/evidence/journal_records.hpp"

namespace fhmoe::evidence {

struct JournalContents {
    RunHeader header;
    std::vector<JournalRecord> records;  // every record after the header, in file order
    std::size_t valid_bytes = 0;         // where the intact records end
    std::size_t torn_tail_bytes = 0;     // bytes of a torn last record (0 if none)
    std::string torn_tail_reason;
};

// Where a journal's intact records end, and what follows them.
struct JournalTail {
    std::size_t valid_bytes = 0;
    std::size_t torn_tail_bytes = 0;
    std::string torn_tail_reason;
};

// Reads a journal one record at a time, holding one record in memory: the header first,
// then every record in file order. The same checks and errors as read_journal. An empty
// `on_header` skips the header: only its frame's magic, version and type are checked, its
// payload is neither read nor decoded (a caller that holds the run's plan, as rank 0 does,
// need not read 86 MB of a large night's header to fold the records after it).
JournalTail for_each_journal_record(const std::string& path,
                                    const std::function<void(RunHeader&&)>& on_header,
                                    const std::function<void(JournalRecord&&)>& on_record);

// Reads a journal. Throws fhmoe::InputError (path, byte offset in the reason) for a missing
// or unreadable file, a first record that is not a run header, another format version, or
// corruption in the middle.
JournalContents read_journal(const std::string& path);

}  // namespace fhmoe::evidence
