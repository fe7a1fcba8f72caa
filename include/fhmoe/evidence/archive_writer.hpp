#pragma once

// Writing the HDF5 evidence archive (archive.hpp).

#include <string>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence {

// Writes `evidence` to `path` (through archive_builder.hpp): HDF5 writes the file to a
// temporary name in the same directory, then it is sealed with a checksum, flushed and
// renamed over `path`. Throws fhmoe::InternalError for inconsistent evidence (check_consistent) and
// fhmoe::Error naming the path and the reason (HDF5's message, or the system's: a full disk)
// when the file cannot be written; `path` is then left as it was and no temporary file stays.
void write_archive(const std::string& path, const RunEvidence& evidence);

}  // namespace fhmoe::evidence
