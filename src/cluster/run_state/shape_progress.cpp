#include "cluster/run_state/shape_progress.hpp"

#include "fhmoe/error.hpp"
#include "fhmoe/family/candidate_id.hpp"
#include "fhmoe/tuning/result_order.hpp"

namespace fhmoe::cluster {
namespace {

std::vector<tuning::CandidateId> planned_ids(const evidence::PlannedShape& planned) {
    std::vector<tuning::CandidateId> ids;
    ids.reserve(planned.candidates.size());
    for (const auto& candidate : planned.candidates)
        ids.push_back(family::to_candidate_id(candidate));
    return ids;
}

}  // namespace

ShapeProgress::ShapeProgress(const evidence::PlannedShape& planned)
    : planned_(&planned), key_(family::shape_key_string(planned.shape)) {
    if (!planned.candidates.empty()) {
        incumbent_id_ = family::to_candidate_id(
            planned.candidates.at(static_cast<std::size_t>(planned.incumbent_index)));
    }
}

void ShapeProgress::add_result(const evidence::CandidateResultRecord& record) {
    tuning::CandidateResult result = record.result;
    if (result.chunk < 0) result.chunk = record.chunk_id;
    merge();  // made now if this is the first result
    merge_->add(result);
    ++results_received_;
    if (result.candidate == incumbent_id_) {
        auto [it, inserted] = incumbent_by_chunk_.try_emplace(result.chunk, result);
        if (!inserted && tuning::compare_for_merge(result, it->second) > 0) it->second = result;
    }
}

const tuning::ShapeMerge& ShapeProgress::merge() const {
    if (!merge_) merge_.emplace(key_, planned_ids(*planned_));
    return *merge_;
}

tuning::StatusCounts ShapeProgress::counts() const {
    if (released_counts_) return *released_counts_;
    if (merge_) return merge_->counts();
    tuning::StatusCounts counts;
    for (std::size_t i = 0; i < planned_->candidates.size(); ++i)
        counts.add(tuning::Status::not_run);
    return counts;
}

void ShapeProgress::release_candidate_state() {
    released_counts_ = counts();
    merge_.emplace(key_, std::vector<tuning::CandidateId>{});
    incumbent_by_chunk_.clear();
}

std::optional<std::string> ShapeProgress::add_loaded(const evidence::ShapeLoadedRecord& record) {
    return digests_.report(record.reference_digest, record.device);
}

void ShapeProgress::add_load_failure(const evidence::ShapeLoadFailedRecord& record) {
    load_failures_.push_back("rank " + std::to_string(record.rank) + " on " + record.host + ": " +
                             record.detail);
}

std::vector<std::int64_t> ShapeProgress::missing_indexes() const {
    std::vector<std::int64_t> missing;
    if (!merge_) {  // nothing received: every planned candidate but the incumbent
        for (std::size_t i = 0; i < planned_->candidates.size(); ++i) {
            if (static_cast<std::int64_t>(i) != planned_->incumbent_index)
                missing.push_back(static_cast<std::int64_t>(i));
        }
        return missing;
    }
    const auto results = merge_->results();
    for (std::size_t i = 0; i < results.size(); ++i) {
        const auto index = static_cast<std::int64_t>(i);
        if (index == planned_->incumbent_index) continue;
        if (!tuning::is_terminal(results[i].status)) missing.push_back(index);
    }
    return missing;
}

bool ShapeProgress::incumbent_terminal() const {
    if (!merge_) return false;  // nothing received
    return tuning::is_terminal(merged_result(planned_->incumbent_index).status);
}

tuning::CandidateResult ShapeProgress::merged_result(std::int64_t planned_index) const {
    const auto results = merge().results();
    FHMOE_CHECK(planned_index >= 0 && static_cast<std::size_t>(planned_index) < results.size(),
                "planned index out of range");
    return results[static_cast<std::size_t>(planned_index)];
}

tuning::IncumbentByChunk ShapeProgress::incumbent_by_chunk() const {
    tuning::IncumbentByChunk by_chunk;
    for (const auto& [chunk, result] : incumbent_by_chunk_) {
        by_chunk[chunk] = tuning::measured_from(result);
    }
    if (!merge_) return by_chunk;  // no result: no chunk
    for (const auto& result : merge_->results()) {
        if (result.chunk >= 0 && by_chunk.count(result.chunk) == 0) {
            by_chunk[result.chunk] = tuning::Measured{tuning::Status::not_run, 0.0, 0.0};
        }
    }
    return by_chunk;
}

}  // namespace fhmoe::cluster
