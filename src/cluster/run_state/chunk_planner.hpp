#pragma once

// Splitting a shape's candidates into chunks (DESIGN.md section 1, step 1). Every chunk
// carries the shape's incumbent first, so each candidate is timed relative to the incumbent
// measured by the same worker on the same device minutes apart (relative_ranking.hpp).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/supervisor/chunk.hpp"
#include "fhmoe/tuning/policy.hpp"
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
// min_default_chunk (the incumbent is re-measured in full in every chunk: small chunks waste
// time on it) and at most max_default_chunk (results of a chunk arrive in a stream, but a
// chunk is the unit a slow rank holds back), both counted in full measurements.
inline constexpr std::size_t min_default_chunk = 4;
inline constexpr std::size_t max_default_chunk = 64;

// How many candidates of this search cost the device about what one full measurement costs
// (the checked run + warmup + iters), rounded down, at least 1: 1 for --search exhaustive;
// (1 + warmup + iters) / (1 + screen_warmup + screen_iters) for --search screen, 107 / 11 ->
// 9 at the defaults. A screen survivor's full measurement comes on top; survivors are a few
// percent of a DSV4 catalogue (docs/performance.md), so they are left out of the scale.
std::size_t candidates_per_full_measurement(const tuning::TuningPolicy& policy);

// The default chunk: about three chunks per rank, within min_default_chunk and
// max_default_chunk full measurements' worth of candidates (`per_full_measurement`, from
// candidates_per_full_measurement). With --search screen the bounds scale with it (36 and
// 576 at the defaults), so a screen chunk keeps about the device time of an exhaustive one
// (the load balance and what a slow rank holds back stay as they were), and the incumbent's
// full measurement stays about the share of a chunk's runs it has under exhaustive: at 64
// candidates a chunk it was 11-13% of a screen chunk's runs, at 576 it is under 2%.
std::size_t default_chunk_size(std::size_t candidates_to_measure, int ranks,
                               std::size_t per_full_measurement);

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
