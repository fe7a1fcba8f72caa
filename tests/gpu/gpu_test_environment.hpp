#pragma once

// What the gpu tests share: the device they run on and where the sources are. Paths come
// from the environment first, because the tests also run from a copy of the tree on the
// borrowed GPU machine, where the build's absolute paths do not exist.

#include <string>

namespace fhmoe::kernels::testing {

// $FHMOE_SOURCE_DIR, else the source tree the test was built from.
std::string source_dir();

// Binds device 0 (the only one, with CUDA_VISIBLE_DEVICES naming one) once per process.
void bind_test_device();

}  // namespace fhmoe::kernels::testing
