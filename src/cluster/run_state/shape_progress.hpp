#pragma once

// Everything rank 0 knows about one planned shape while the run goes on: the merge of its
// results (one terminal status per planned candidate), the incumbent's time in every chunk,
// the digests ranks reported, the race and the decision. Fed the same way from live results
// and from a journal being resumed, so a resumed run rebuilds exactly this state.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/run_state/digest_agreement.hpp"
#include "fhmoe/evidence/journal.hpp"
#include "fhmoe/tuning/relative_ranking.hpp"
#include "fhmoe/tuning/shape_merge.hpp"

namespace fhmoe::cluster {

class ShapeProgress {
public:
    explicit ShapeProgress(const evidence::PlannedShape& planned);

    const evidence::PlannedShape& planned() const { return *planned_; }
    const std::string& key() const { return key_; }
    const tuning::CandidateId& incumbent_id() const { return incumbent_id_; }

    // A result of this shape (journaled first by the caller). Results of a candidate that is
    // not the incumbent arrive once per run; the incumbent's once per chunk.
    void add_result(const evidence::CandidateResultRecord& record);
    // A rank loaded the shape; returns the disagreement the first time digests differ.
    std::optional<std::string> add_loaded(const evidence::ShapeLoadedRecord& record);
    void add_load_failure(const evidence::ShapeLoadFailedRecord& record);

    // Planned indexes other than the incumbent's without a terminal result.
    std::vector<std::int64_t> missing_indexes() const;
    bool incumbent_terminal() const;
    bool is_complete() const { return merge().is_complete(); }
    std::optional<tuning::CompleteShape> complete() const { return merge().complete(); }
    std::vector<tuning::CandidateResult> merged_results() const { return merge().results(); }
    tuning::StatusCounts counts() const;
    // Once the shape is decided, rank 0 needs only its counts (the summary): the merged
    // results, kept per candidate, are freed, so rank 0 holds per-candidate state only for
    // the shapes still being measured (issue #12, item 9). The journal keeps every result.
    // Nothing but counts() may be asked afterwards.
    void release_candidate_state();
    // The merged result of a planned candidate (not_run when none arrived).
    tuning::CandidateResult merged_result(std::int64_t planned_index) const;

    // The incumbent's measurement in every chunk a kept result came from; a chunk whose
    // incumbent never reported counts as not_run (relative_ranking.hpp requires an entry).
    tuning::IncumbentByChunk incumbent_by_chunk() const;

    const DigestAgreement& digests() const { return digests_; }
    const std::vector<std::string>& load_failures() const { return load_failures_; }
    std::size_t results_received() const { return results_received_; }

    // Work bookkeeping (chunks and races queued or running).
    std::size_t outstanding_work = 0;
    bool race_planned = false;
    std::optional<evidence::RaceOutcomeRecord> race;  // a race that ran to its end
    std::optional<evidence::ShapeDecision> decision;

private:
    // The merge, made when first needed: a shape whose measuring has not begun holds no
    // per-candidate state, so rank 0 holds it only for the shapes begun and not yet decided
    // (issue #12, item 9). What a not-begun shape answers without it is what its empty merge
    // would answer.
    const tuning::ShapeMerge& merge() const;

    const evidence::PlannedShape* planned_;
    std::string key_;
    tuning::CandidateId incumbent_id_;
    mutable std::optional<tuning::ShapeMerge> merge_;
    std::map<std::int64_t, tuning::CandidateResult> incumbent_by_chunk_;
    DigestAgreement digests_;
    std::vector<std::string> load_failures_;
    std::size_t results_received_ = 0;
    std::optional<tuning::StatusCounts> released_counts_;
};

}  // namespace fhmoe::cluster
