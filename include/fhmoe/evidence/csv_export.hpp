#pragma once

// The archive's tables as CSV files, for spreadsheets and tools that do not read HDF5.

#include <string>
#include <vector>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence {

// Writes provenance.csv (name,value), policy.csv, ranks.csv, shapes.csv, candidates.csv,
// race.csv and decisions.csv into `directory` (created if missing), with the archive's
// column names, one row per record. Enums are written by name, absent values as empty
// fields. Returns the paths written. Throws fhmoe::Error naming a file it cannot write.
std::vector<std::string> export_csv(const RunEvidence& evidence, const std::string& directory);

}  // namespace fhmoe::evidence
