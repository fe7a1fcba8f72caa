#pragma once

#include <string_view>

namespace fhmoe {

// The tool's version string (the CMake project version).
std::string_view version();

// Which device backend this build carries besides cpu and sim: "NONE", "CUDA" or "HIP".
std::string_view gpu_backend_compiled();

}  // namespace fhmoe
