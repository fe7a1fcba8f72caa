#pragma once

// The HDF5 evidence archive of one run (docs/evidence-schema.md). Rank 0 writes it at every
// checkpoint and at the end; each write replaces the previous archive atomically, so a
// reader (or a crash) only ever sees a whole archive.

// Writing is archive_writer.hpp, reading archive_reader.hpp, each implemented by the source
// file of its name.

#include "fhmoe/evidence/archive_reader.hpp"
#include "fhmoe/evidence/archive_writer.hpp"

namespace fhmoe::evidence {

// The schema this build writes. Bumped on any change a reader of the previous version would
// misread (docs/evidence-schema.md, "Versions"); a field added since is no such change: an
// archive written before it lacks it, and reads with the field absent. This build also reads
// the previous version, so a night-to-night diff spans the upgrade that bumped it:
// schema_version 2 (2026-12-02) renamed /decisions winner_key, winner_us, winner_stderr_us
// to best_challenger_key, best_challenger_us, best_challenger_stderr_us.
inline constexpr int kSchemaVersion = 2;
inline constexpr int kPreviousSchemaVersion = 1;

}  // namespace fhmoe::evidence
