#pragma once

// Reading the HDF5 evidence archive (archive.hpp).

#include <string>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence {

// Reads an archive written by write_archive. Throws fhmoe::Error naming the path for a
// missing, truncated or corrupted file, a file that is not an archive, another
// schema_version, or a missing dataset or field (other than one added since version 1). Never
// crashes on a damaged file: the seal is verified before HDF5 reads a byte of it.
RunEvidence read_archive(const std::string& path);

}  // namespace fhmoe::evidence
