#include "fhmoe/tuning/shape_merge.hpp"

#include <utility>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/result_order.hpp"

namespace fhmoe::tuning {

CompleteShape::CompleteShape(std::string shape_key, std::vector<CandidateResult> results)
    : shape_key_(std::move(shape_key)), results_(std::move(results)) {}

ShapeMerge::ShapeMerge(std::string shape_key, std::vector<CandidateId> planned)
    : shape_key_(std::move(shape_key)), planned_(std::move(planned)), kept_(planned_.size()) {
    for (std::size_t index = 0; index < planned_.size(); ++index) {
        const bool inserted = plan_index_.emplace(planned_[index], index).second;
        FHMOE_CHECK(inserted,
                    "shape " + shape_key_ + " plans candidate " + planned_[index].key() + " twice");
    }
}

void ShapeMerge::add(const CandidateResult& result) {
    FHMOE_CHECK(result.shape_key == shape_key_, "result for shape " + result.shape_key +
                                                    " given to the merge of shape " + shape_key_);
    const auto planned = plan_index_.find(result.candidate);
    FHMOE_CHECK(planned != plan_index_.end(), "shape " + shape_key_ + ": candidate " +
                                                  result.candidate.key() + " was not planned");
    ++received_;
    std::optional<CandidateResult>& kept = kept_[planned->second];
    if (!kept || compare_for_merge(result, *kept) > 0) kept = result;
}

std::vector<CandidateResult> ShapeMerge::results() const {
    std::vector<CandidateResult> merged;
    merged.reserve(planned_.size());
    for (std::size_t index = 0; index < planned_.size(); ++index) {
        if (kept_[index]) {
            merged.push_back(*kept_[index]);
            continue;
        }
        CandidateResult missing;
        missing.shape_key = shape_key_;
        missing.candidate = planned_[index];
        missing.status = Status::not_run;
        missing.detail = "no result received";
        merged.push_back(std::move(missing));
    }
    return merged;
}

StatusCounts ShapeMerge::counts() const {
    StatusCounts counts;
    for (const auto& kept : kept_) counts.add(kept ? kept->status : Status::not_run);
    return counts;
}

bool ShapeMerge::is_complete() const { return counts()[Status::not_run] == 0; }

std::optional<CompleteShape> ShapeMerge::complete() const {
    if (!is_complete()) return std::nullopt;
    return CompleteShape(shape_key_, results());
}

}  // namespace fhmoe::tuning
