#pragma once

// Coverage and merge of one shape (PR #5846's rules, made whole). Results for a shape
// arrive from several chunks, ranks and worker lives, in any order, some more than once.
// ShapeMerge folds them into exactly one result per planned candidate:
//  - a measured candidate is never dropped;
//  - a planned candidate without a result is not_run;
//  - duplicates resolve by compare_for_merge (result_order.hpp), independent of arrival order;
//  - a result for a candidate outside the plan is rejected.
// A shape is complete when no candidate is not_run. Only a complete shape yields a
// CompleteShape, and only a CompleteShape can be ranked (relative_ranking.hpp): an
// incomplete shape cannot produce a published candidate through this API.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fhmoe/tuning/result.hpp"
#include "fhmoe/tuning/status_counts.hpp"

namespace fhmoe::tuning {

// Proof that every planned candidate of a shape has a terminal status. Made only by
// ShapeMerge::complete().
class CompleteShape {
public:
    const std::string& shape_key() const noexcept { return shape_key_; }
    const std::vector<CandidateResult>& results() const noexcept { return results_; }  // plan order

private:
    friend class ShapeMerge;
    CompleteShape(std::string shape_key, std::vector<CandidateResult> results);

    std::string shape_key_;
    std::vector<CandidateResult> results_;
};

class ShapeMerge {
public:
    // Throws fhmoe::InternalError if `planned` names a candidate twice.
    ShapeMerge(std::string shape_key, std::vector<CandidateId> planned);

    // Throws fhmoe::InternalError for a result of another shape or of an unplanned candidate.
    void add(const CandidateResult& result);

    const std::string& shape_key() const noexcept { return shape_key_; }
    const std::vector<CandidateId>& planned() const noexcept { return planned_; }
    std::size_t received() const noexcept { return received_; }  // duplicates included

    // One result per planned candidate, in plan order; not_run for those without one.
    std::vector<CandidateResult> results() const;
    StatusCounts counts() const;
    bool is_complete() const;
    std::optional<CompleteShape> complete() const;

private:
    std::string shape_key_;
    std::vector<CandidateId> planned_;
    std::map<CandidateId, std::size_t> plan_index_;
    std::vector<std::optional<CandidateResult>> kept_;  // parallel to planned_
    std::size_t received_ = 0;
};

}  // namespace fhmoe::tuning
