#include "cluster/run_state/chunk_planner.hpp"

#include <algorithm>

#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate_id.hpp"

namespace fhmoe::cluster {

std::size_t candidates_per_full_measurement(const tuning::TuningPolicy& policy) {
    if (policy.search.mode != tuning::SearchMode::screen) return 1;
    // One checked run each way: both searches check every candidate before timing it.
    const std::size_t full_runs =
        static_cast<std::size_t>(1 + policy.measurement.warmup + policy.measurement.iters);
    const std::size_t screen_runs =
        static_cast<std::size_t>(1 + policy.search.screen_warmup + policy.search.screen_iters);
    return std::max<std::size_t>(1, full_runs / screen_runs);
}

std::size_t default_chunk_size(std::size_t candidates_to_measure, int ranks,
                               std::size_t per_full_measurement) {
    FHMOE_CHECK(per_full_measurement >= 1, "candidates per full measurement must be at least 1");
    const std::size_t target_chunks = 3 * static_cast<std::size_t>(std::max(ranks, 1));
    const std::size_t size = (candidates_to_measure + target_chunks - 1) / target_chunks;
    return std::clamp(size, min_default_chunk * per_full_measurement,
                      max_default_chunk * per_full_measurement);
}

std::size_t chunk_count(std::size_t indexes, bool incumbent_needed, std::size_t chunk_size) {
    FHMOE_CHECK(chunk_size >= 1, "chunk size must be positive");
    if (indexes == 0 && !incumbent_needed) return 0;
    return std::max<std::size_t>(1, (indexes + chunk_size - 1) / chunk_size);
}

supervisor::PlannedCandidate planned_candidate(const evidence::PlannedShape& shape,
                                               std::int64_t index) {
    FHMOE_CHECK(index >= 0 && static_cast<std::size_t>(index) < shape.candidates.size(),
                "planned index out of range");
    const family::Candidate& config = shape.candidates[static_cast<std::size_t>(index)];
    return supervisor::PlannedCandidate{index, family::to_candidate_id(config), config};
}

std::vector<supervisor::Chunk> plan_chunks(const evidence::PlannedShape& shape,
                                           const std::vector<std::int64_t>& indexes,
                                           bool incumbent_needed, std::size_t chunk_size,
                                           const ChunkSettings& settings, std::int64_t& next_id) {
    std::vector<supervisor::Chunk> chunks;
    const std::size_t n_chunks = chunk_count(indexes.size(), incumbent_needed, chunk_size);
    if (n_chunks == 0) return chunks;
    const std::size_t base = indexes.size() / n_chunks;
    const std::size_t extra = indexes.size() % n_chunks;
    std::size_t next = 0;
    for (std::size_t c = 0; c < n_chunks; ++c) {
        supervisor::Chunk chunk;
        chunk.chunk_id = next_id++;
        chunk.shape = shape.shape;
        chunk.seed = settings.seed;
        chunk.measurement = settings.measurement;
        chunk.candidate_timeout_s = settings.candidate_timeout_s;
        chunk.screen = settings.screen;
        chunk.candidates.push_back(planned_candidate(shape, shape.incumbent_index));
        const std::size_t count = base + (c < extra ? 1 : 0);
        for (std::size_t i = 0; i < count; ++i) {
            FHMOE_CHECK(indexes[next] != shape.incumbent_index,
                        "the incumbent is added to every chunk by the planner");
            chunk.candidates.push_back(planned_candidate(shape, indexes[next++]));
        }
        chunks.push_back(std::move(chunk));
    }
    return chunks;
}

}  // namespace fhmoe::cluster
