#include <optional>

#include "fhmoe/supervisor/run_blocking.hpp"

namespace fhmoe::supervisor {

// Both run on the pollable state machine, so the CLI and the tests exercise exactly the
// paths an MPI rank loop drives.

void run_chunk(Supervisor& supervisor, Chunk chunk, const EventSink& on_event) {
    const std::int64_t chunk_id = chunk.chunk_id;
    supervisor.start_chunk(std::move(chunk));
    bool done = false;
    while (!done) {
        for (const Event& event : supervisor.poll(-1)) {
            if (on_event) on_event(event);
            if (const auto* finished = std::get_if<ChunkDone>(&event)) {
                done = done || finished->chunk_id == chunk_id;
            }
        }
    }
}

RaceDone run_race(Supervisor& supervisor, Race race, const EventSink& on_event) {
    const std::int64_t race_id = race.race_id;
    supervisor.start_race(std::move(race));
    std::optional<RaceDone> result;
    while (!result) {
        for (const Event& event : supervisor.poll(-1)) {
            if (on_event) on_event(event);
            if (const auto* finished = std::get_if<RaceDone>(&event)) {
                if (finished->race_id == race_id) result = *finished;
            }
        }
    }
    return *result;
}

}  // namespace fhmoe::supervisor
