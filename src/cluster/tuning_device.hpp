#pragma once

// The gfx/cu_num a run tunes for: the device columns of the rows it reads and writes.

#include <string>

#include "fhmoe/family/shape.hpp"
#include "fhmoe/worker/backend_kind.hpp"

namespace fhmoe::cluster {

// cpu: gfx "cpu", cu_num = the host's hardware threads (what the cpu kernels spread tiles
// over, so a row measured on a 2-thread box is not mistaken for one from a 64-thread box).
// sim: gfx "sim", cu_num 1 (one simulated device model; sim rows never mix with real ones).
// gpu: not known before a worker reports its device: the run asks one
// (worker_device_probe.hpp); here it throws fhmoe::Error.
family::DeviceKey tuning_device_for_backend(worker::BackendKind backend);

}  // namespace fhmoe::cluster
