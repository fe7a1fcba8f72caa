#pragma once

// Blocking conveniences built on the supervisor's state machine (the CLI, --run_config and
// tests): run one chunk or race to completion, handing every event to on_event as it
// happens.

#include <functional>

#include "fhmoe/supervisor/supervisor.hpp"

namespace fhmoe::supervisor {

using EventSink = std::function<void(const Event&)>;
void run_chunk(Supervisor& supervisor, Chunk chunk, const EventSink& on_event);
RaceDone run_race(Supervisor& supervisor, Race race, const EventSink& on_event);

}  // namespace fhmoe::supervisor
