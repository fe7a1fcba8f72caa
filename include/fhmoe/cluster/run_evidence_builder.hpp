#pragma once

// The archive's RunEvidence (evidence/run_evidence.hpp), folded from journal records alone:
// one candidate row per planned candidate (the merged result, with its time relative to the
// incumbent), every race round, every decision, and the run's provenance (from the session
// records). The tuner writes its archive through this fold of its own journal, and
// `fhmoe_evidence rebuild` runs the same fold on a journal left behind by a crash, so the two
// cannot drift apart. No MPI: the offline tool links it.

#include <cstddef>
#include <string>

#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::cluster {

// Records are folded the way rank 0 acts on them (coordinator.hpp): results merge per
// planned candidate, a race cut short by a stop is ignored, and an `incomplete` decision of
// an earlier session is dropped when a --resume starts (the resume retries the shape). The
// provenance is the latest session's; without a session_ended record the archive says the
// run did not finish (complete false, exit_status -1). Throws fhmoe::Error for a record
// naming a shape the header did not plan (a journal that contradicts itself).
evidence::RunEvidence build_run_evidence(const evidence::JournalContents& journal);

// The same fold, written straight to the archive at `archive_path` (evidence::write_archive's
// file, written the same way: atomically, the old archive untouched on failure) without the
// RunEvidence: the journal is read twice, one record at a time, first to find each shape's
// last record, then to fold, writing each shape's candidate rows and freeing its state at
// that record. Rank 0 then holds per-candidate state only for the shapes whose records
// overlap (those measured at the same time), and HDF5's caches (issue #12, item 9). `plan`,
// when given, is the journal's run header, which the caller holds (rank 0's plan): the
// journal's copy is then not decoded. Throws like build_run_evidence and write_archive.
struct StreamedArchive {
    std::size_t most_shapes_held = 0;  // shapes whose per-candidate state was held at once
};
StreamedArchive write_archive_from_journal(const std::string& journal_path,
                                           const std::string& archive_path,
                                           const evidence::RunHeader* plan = nullptr);

}  // namespace fhmoe::cluster
