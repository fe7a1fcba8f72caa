#pragma once

// The archive's RunEvidence (evidence/run_evidence.hpp), folded from journal records alone:
// one candidate row per planned candidate (the merged result, with its time relative to the
// incumbent), every race round, every decision, and the run's provenance (from the session
// records). The tuner writes its archive through this fold of its own journal, and
// `fhmoe_evidence rebuild` runs the same fold on a journal left behind by a crash, so the two
// cannot drift apart. No MPI: the offline tool links it.

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

// The same fold, reading the journal at `path` one record at a time (never the whole file
// and every record at once): what rank 0 writes its archive with (issue #12, item 9).
evidence::RunEvidence build_run_evidence_from_journal(const std::string& path);

}  // namespace fhmoe::cluster
