#pragma once

// write_archive writes `<archive>.tmp.<pid>` and renames it into place. A process killed in
// between (mpirun's SIGKILL after a SIGTERM, a time limit) leaves that temporary behind, 5-25
// MB each for a night's archive. The next run for the same archive removes the ones whose
// writer is gone; nothing else is touched.

#include <string>
#include <vector>

namespace fhmoe::evidence {

// Removes `<archive_path>.tmp.<pid>` files whose pid is not a live process on this host
// (another archive's temporaries, other names, and a live writer's file are left alone).
// Returns the paths removed. Never throws: a leftover that cannot be removed is only waste.
std::vector<std::string> remove_dead_writers_temporaries(const std::string& archive_path);

}  // namespace fhmoe::evidence
