#pragma once

// Rank 0's state as the archive's RunEvidence (evidence/run_evidence.hpp): one candidate row
// per planned candidate (the merged result, with its time relative to the incumbent), every
// race round, every decision, and the run's provenance.

#include <cstdint>
#include <vector>

#include "fhmoe/cluster/coordinator.hpp"
#include "fhmoe/cluster/tune_options.hpp"
#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::cluster {

struct RunTimes {
    std::int64_t started_unix = 0;
    std::int64_t finished_unix = 0;  // 0 at a checkpoint
    int exit_status = -1;            // -1 at a checkpoint
};

evidence::RunEvidence build_run_evidence(const TuneOptions& options,
                                         const family::DeviceKey& device,
                                         const std::vector<ShapeProgress>& shapes,
                                         const std::vector<RankState>& ranks,
                                         const RunTimes& times);

}  // namespace fhmoe::cluster
