#pragma once

// The evidence archive (archive.hpp) built a piece at a time, so that its writer never holds
// every candidate row of the night at once (issue #12, item 9): the candidates table, one row
// per planned candidate, is created at its final size and filled in row ranges in any order
// (rank 0 writes each shape's rows as soon as the journal holds nothing more about it); the
// small tables (shapes, race, decisions, policy, ranks) and the provenance are written by
// finish(). The file is the one write_archive makes from a whole RunEvidence (write_archive
// is this builder, fed all at once): HDF5 writes it to a temporary file beside the target as
// the rows come (never holding the file in memory), finish() seals it, syncs it and renames it
// over the target; until then the target does not change, and when the builder is destroyed
// unfinished (or a write failed: a full disk) the temporary file is removed.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence {

class ArchiveBuilder {
public:
    // An archive for `path` of the shapes whose keys are `shape_keys` (in shape id order) and
    // exactly `candidate_rows` candidate rows. Throws fhmoe::Error naming the path when HDF5
    // cannot start the file.
    ArchiveBuilder(std::string path, std::vector<std::string> shape_keys,
                   std::size_t candidate_rows);
    ~ArchiveBuilder();
    ArchiveBuilder(const ArchiveBuilder&) = delete;
    ArchiveBuilder& operator=(const ArchiveBuilder&) = delete;

    // Candidate rows [first_row, first_row + rows.size()). Every row is written once before
    // finish(). Throws fhmoe::InternalError for a row outside the table, an unknown shape id
    // or a shape_key that is not its shape's (check_consistent's rules), fhmoe::Error for a
    // failure of HDF5.
    void write_candidates(std::size_t first_row, std::span<const CandidateRecord> rows);

    // Race and decision rows, stored in the order they are added. Throws
    // fhmoe::InternalError for an unknown shape id, a pending decision or a second decision
    // of one shape.
    void add_race(RaceSample sample);
    void add_decision(DecisionRecord decision);

    // Writes the remaining tables and the provenance, seals the file and replaces `path`
    // with it. `shapes` must name the keys given to the constructor, in the same order.
    // Throws fhmoe::InternalError when some candidate row was not written or `shapes` does
    // not match, fhmoe::Error naming the path when the file cannot be written (`path` is then
    // left as it was and no temporary file stays).
    void finish(const Provenance& provenance, const std::vector<ShapeRecord>& shapes);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace fhmoe::evidence
