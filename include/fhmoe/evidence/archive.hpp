#pragma once

// The HDF5 evidence archive of one run (docs/evidence-schema.md). Rank 0 writes it at every
// checkpoint and at the end; each write replaces the previous archive atomically, so a
// reader (or a crash) only ever sees a whole archive.

#include <string>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence {

// The schema this build writes and the only one it reads. Bumped on any change a reader
// of the previous version would misread (docs/evidence-schema.md, "Versions"); a field
// added since is no such change: an archive written before it lacks it, and reads with the
// field absent (a night-to-night diff spans tool upgrades).
inline constexpr int kSchemaVersion = 1;

// Writes `evidence` to `path` (through archive_builder.hpp): HDF5 writes the file to a
// temporary name in the same directory, then it is sealed with a checksum, flushed and
// renamed over `path`. Throws fhmoe::InternalError for inconsistent evidence (check_consistent) and
// fhmoe::Error naming the path and the reason (HDF5's message, or the system's: a full disk)
// when the file cannot be written; `path` is then left as it was and no temporary file stays.
void write_archive(const std::string& path, const RunEvidence& evidence);

// Reads an archive written by write_archive. Throws fhmoe::Error naming the path for a
// missing, truncated or corrupted file, a file that is not an archive, another
// schema_version, or a missing dataset or field (other than one added since version 1). Never
// crashes on a damaged file: the seal is verified before HDF5 reads a byte of it.
RunEvidence read_archive(const std::string& path);

}  // namespace fhmoe::evidence
