#pragma once

// Ranking candidates measured on different GPUs. GPUs of one model differ by a few percent,
// so absolute times from two ranks do not compare. Every chunk a rank measures includes the
// incumbent, so each candidate is scored by its time relative to the incumbent timed in the
// same chunk (same device, same worker life, minutes apart).
//
// A chunk whose incumbent did not come out ok cannot give its candidates that ratio. Those
// candidates are scored against the median of the incumbent's ok times in the shape's other
// chunks (basis other_chunks_incumbent: a cross-device estimate, flagged as such) rather
// than excluded, so that a fault of the incumbent never hides a candidate from the race; the
// race then measures every finalist on one device anyway. When no chunk has an ok incumbent
// (a new shape, or an incumbent that fails everywhere), every candidate of the shape is
// scored by its absolute time: one shape never mixes ratios with microseconds.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "fhmoe/tuning/measured.hpp"
#include "fhmoe/tuning/result.hpp"
#include "fhmoe/tuning/shape_merge.hpp"

namespace fhmoe::tuning {

// The incumbent's measurement in each chunk of one shape, keyed by CandidateResult::chunk.
// Empty for a shape without an incumbent.
using IncumbentByChunk = std::map<std::int64_t, Measured>;

enum class RankingBasis {
    same_chunk_incumbent,    // score = candidate / incumbent of the same chunk
    other_chunks_incumbent,  // score = candidate / median ok incumbent of the other chunks
    absolute,                // score = candidate mean in microseconds
};

std::string_view to_string(RankingBasis basis) noexcept;

struct RelativeTime {
    double score = 0.0;  // lower is faster
    RankingBasis basis = RankingBasis::absolute;
};

// The candidate's score; none when it is not ok. Throws fhmoe::InternalError when the shape
// has an incumbent but not in the candidate's chunk (every chunk includes it; one that
// never ran is reported as not_run), or for an ok measurement without a positive mean.
std::optional<RelativeTime> relative_to_incumbent(const CandidateResult& candidate,
                                                  const IncumbentByChunk& incumbent_by_chunk);

struct Finalist {
    CandidateResult result;
    RelativeTime relative;
};

// The `n` ok candidates with the lowest score, ties broken by CandidateId::key(). The
// incumbent's own id, when given, is left out: it races as the incumbent. So are candidates
// their screen pruned (ScreenOutcome::pruned): only fully measured ones reach the race.
std::vector<Finalist> select_finalists(const CompleteShape& shape,
                                       const IncumbentByChunk& incumbent_by_chunk, std::size_t n,
                                       const std::optional<CandidateId>& incumbent_id);

}  // namespace fhmoe::tuning
