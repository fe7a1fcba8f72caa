#include "fhmoe/tuning/relative_ranking.hpp"

#include <algorithm>
#include <string>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/statistics.hpp"

namespace fhmoe::tuning {

std::string_view to_string(RankingBasis basis) noexcept {
    switch (basis) {
        case RankingBasis::same_chunk_incumbent: return "same_chunk_incumbent";
        case RankingBasis::other_chunks_incumbent: return "other_chunks_incumbent";
        case RankingBasis::absolute: return "absolute";
    }
    return "invalid";
}

namespace {

std::optional<double> median_ok_incumbent(const IncumbentByChunk& incumbent_by_chunk) {
    std::vector<double> means;
    for (const auto& [chunk, incumbent] : incumbent_by_chunk) {
        check_measured(incumbent, "incumbent of chunk " + std::to_string(chunk));
        if (incumbent.status == Status::ok) means.push_back(incumbent.mean_us);
    }
    if (means.empty()) return std::nullopt;
    std::sort(means.begin(), means.end());
    return quantile_linear(means, 0.5);
}

}  // namespace

std::optional<RelativeTime> relative_to_incumbent(const CandidateResult& candidate,
                                                  const IncumbentByChunk& incumbent_by_chunk) {
    const Measured measured = measured_from(candidate);
    check_measured(measured, candidate.candidate.key());
    if (measured.status != Status::ok) return std::nullopt;

    const std::optional<double> shape_reference = median_ok_incumbent(incumbent_by_chunk);
    if (!shape_reference) return RelativeTime{measured.mean_us, RankingBasis::absolute};

    const auto same_chunk = incumbent_by_chunk.find(candidate.chunk);
    FHMOE_CHECK(same_chunk != incumbent_by_chunk.end(),
                "shape " + candidate.shape_key + ": no incumbent measurement for chunk " +
                    std::to_string(candidate.chunk) + " of " + candidate.candidate.key());
    if (same_chunk->second.status == Status::ok) {
        return RelativeTime{measured.mean_us / same_chunk->second.mean_us,
                            RankingBasis::same_chunk_incumbent};
    }
    return RelativeTime{measured.mean_us / *shape_reference, RankingBasis::other_chunks_incumbent};
}

std::vector<Finalist> select_finalists(const CompleteShape& shape,
                                       const IncumbentByChunk& incumbent_by_chunk, std::size_t n,
                                       const std::optional<CandidateId>& incumbent_id) {
    std::vector<Finalist> ranked;
    for (const CandidateResult& result : shape.results()) {
        if (incumbent_id && result.candidate == *incumbent_id) continue;
        // A pruned candidate's screen showed it cannot win (tuning/screen.hpp); its few runs
        // are not a measurement to rank against full ones.
        if (result.screen.pruned) continue;
        if (auto relative = relative_to_incumbent(result, incumbent_by_chunk)) {
            ranked.push_back(Finalist{result, *relative});
        }
    }
    std::sort(ranked.begin(), ranked.end(), [](const Finalist& a, const Finalist& b) {
        if (a.relative.score != b.relative.score) return a.relative.score < b.relative.score;
        return a.result.candidate.key() < b.result.candidate.key();
    });
    if (ranked.size() > n) ranked.resize(n);
    return ranked;
}

}  // namespace fhmoe::tuning
