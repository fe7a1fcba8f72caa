#pragma once

// The HDF5 evidence archive of one run (docs/evidence-schema.md). Rank 0 writes it at every
// checkpoint and at the end; each write replaces the previous archive atomically, so a
// reader (or a crash) only ever sees a whole archive.

// Writing is archive_writer.hpp, reading archive_reader.hpp, each implemented by the source
// file of its name.

#include "fhmoe/evidence/archive_reader.hpp"
#include "fhmoe/evidence/archive_writer.hpp"

namespace fhmoe::evidence {

// The schema this build writes and the only one it reads. Bumped on any change a reader
// of the previous version would misread (docs/evidence-schema.md, "Versions"); a field
// added since is no such change: an archive written before it lacks it, and reads with the
// field absent (a night-to-night diff spans tool upgrades).
inline constexpr int kSchemaVersion = 1;

}  // namespace fhmoe::evidence
