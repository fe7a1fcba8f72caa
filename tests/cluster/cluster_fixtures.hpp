#pragma once

// Small planned shapes and results for the unit tests of rank 0's logic.

#include <cstdint>
#include <vector>

#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/family/catalogue.hpp"
#include "fhmoe/family/default_config.hpp"
#include "support/small_shape.hpp"

namespace fhmoe::cluster::testing {

using test_support::small_shape;

// `n` catalogue candidates of the small shape, the default config (the incumbent) among them.
inline evidence::PlannedShape planned_shape(std::int64_t token, std::size_t n,
                                            bool from_tuned_row = false) {
    evidence::PlannedShape planned;
    planned.shape = small_shape(token);
    const auto catalogue = family::build_catalogue(planned.shape);
    const family::Candidate incumbent = family::default_candidate(planned.shape);
    for (const auto& candidate : catalogue) {
        if (planned.candidates.size() + 1 >= n) break;
        if (candidate != incumbent) planned.candidates.push_back(candidate);
    }
    planned.candidates.push_back(incumbent);
    planned.incumbent_index = static_cast<std::int64_t>(planned.candidates.size() - 1);
    planned.incumbent_from_tuned_row = from_tuned_row;
    return planned;
}

inline evidence::CandidateResultRecord result_of(const evidence::PlannedShape& planned,
                                                 std::int64_t index, std::int64_t chunk,
                                                 tuning::Status status, double mean_us = 0.0) {
    evidence::CandidateResultRecord record;
    record.chunk_id = chunk;
    record.planned_index = index;
    record.result.shape_key = family::shape_key_string(planned.shape);
    record.result.candidate =
        family::to_candidate_id(planned.candidates.at(static_cast<std::size_t>(index)));
    record.result.status = status;
    record.result.timing.mean_us = mean_us;
    record.result.timing.stderr_us = mean_us / 100.0;
    record.result.timing.n_raw = record.result.timing.n_kept = 10;
    record.result.chunk = chunk;
    return record;
}

}  // namespace fhmoe::cluster::testing
