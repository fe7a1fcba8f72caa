#pragma once

#include <string_view>

namespace fhmoe {

// The tool's version: the CMake project version, with "+g<revision>" when the tree was
// configured inside a git checkout (semver build metadata), e.g. "0.1.0+g1a2b3c4d5e6f".
std::string_view version();

// The git revision part of a version() string ("" when it has none).
std::string_view git_revision_of(std::string_view version_text);

// Which device backend this build carries besides cpu and sim: "NONE", "CUDA" or "HIP".
std::string_view gpu_backend_compiled();

}  // namespace fhmoe
