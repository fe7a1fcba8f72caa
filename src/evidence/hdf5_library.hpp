#pragma once

#include <string>

namespace fhmoe::evidence {

// "major.minor.release" of the HDF5 library linked in (recorded in the run provenance).
std::string hdf5_library_version();

}  // namespace fhmoe::evidence
