#pragma once

// What the journal records about one launch of the tuner (the first run or a --resume), so
// that the evidence archive's provenance comes from the journal like everything else in it.

#include <cstdint>

#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/family/shape.hpp"

namespace fhmoe::cluster {

// The session_started record of this launch: command line, backend, seed, device, rank
// count, start time, tool version, and the policy values the archive's /policy lists.
evidence::SessionStartedRecord session_started(const TuneOptions& options,
                                               const family::DeviceKey& device, int world_size,
                                               std::int64_t started_unix);

}  // namespace fhmoe::cluster
