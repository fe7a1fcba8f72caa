#pragma once

// The sim backend: no compute, a latency model. A candidate's time is a smooth function of
// the shape's work, the padding its block_m causes and its tiles, times a per-candidate
// "personality" factor and the device's speed factor, with seeded noise per sample, all
// deterministic per (shape, candidate, seed, device). Good enough to give schedulers, the
// gate and scale tests a landscape with a real fastest candidate and real noise; never a real
// number (its rows carry device "sim").

#include <memory>

#include "fhmoe/worker/backend.hpp"

namespace fhmoe::worker {

std::unique_ptr<Backend> make_sim_backend(const BackendOptions& options);

}  // namespace fhmoe::worker
