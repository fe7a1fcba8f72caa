#pragma once

// Splitting a shape's candidates into chunks (DESIGN.md section 1, step 1). Every chunk
// carries the shape's incumbent first, so each candidate is timed relative to the incumbent
// measured by the same worker on the same device minutes apart (relative_ranking.hpp).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/supervisor/chunk.hpp"
#include "fhmoe/wire/measurement_settings.hpp"
#include "fhmoe/wire/screen_settings.hpp"

namespace fhmoe::cluster {

// How chunks of this run are filled, other than their candidates.
struct ChunkSettings {
    std::uint64_t seed = 0;
    wire::MeasurementSettings measurement;
    double candidate_timeout_s = 60.0;
    wire::ScreenSettings screen;  // --search screen: the incumbent first is what makes it work
};

// Candidates per chunk when --chunk is not given: about three chunks per rank over the run,
// so a rank that finishes early finds work while slower ranks finish theirs, but at least
// min_default_chunk (the incumbent is re-measured in every chunk: small chunks waste time on
// it) and at most max_default_chunk (results of a chunk arrive in a stream, but a chunk is
// the unit a slow rank holds back).
inline constexpr std::size_t min_default_chunk = 4;
inline constexpr std::size_t max_default_chunk = 64;
std::size_t default_chunk_size(std::size_t candidates_to_measure, int ranks);

// The chunks that measure `indexes` (planned indexes other than the incumbent's) of one
// shape, in planned order, spread evenly over ceil(n / chunk_size) chunks. Each chunk starts
// with the incumbent. When `indexes` is empty but `incumbent_needed`, one chunk measures the
// incumbent alone. Chunk ids are taken from next_id onwards (it is advanced).
std::vector<supervisor::Chunk> plan_chunks(const evidence::PlannedShape& shape,
                                           const std::vector<std::int64_t>& indexes,
                                           bool incumbent_needed, std::size_t chunk_size,
                                           const ChunkSettings& settings, std::int64_t& next_id);

// How many chunks plan_chunks makes for `indexes` candidates, without making them.
std::size_t chunk_count(std::size_t indexes, bool incumbent_needed, std::size_t chunk_size);

// The planned candidate at `index` of `shape`.
supervisor::PlannedCandidate planned_candidate(const evidence::PlannedShape& shape,
                                               std::int64_t index);

}  // namespace fhmoe::cluster
