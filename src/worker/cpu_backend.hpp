#pragma once

// The cpu backend: kernels/cpu's FhmoeOp timed with the steady clock.

#include <memory>

#include "fhmoe/worker/backend.hpp"

namespace fhmoe::worker {

std::unique_ptr<Backend> make_cpu_backend(const BackendOptions& options);

}  // namespace fhmoe::worker
