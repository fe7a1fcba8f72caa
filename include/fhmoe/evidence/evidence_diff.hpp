#pragma once

// Night-to-night comparison of two runs: what a user must look at the morning after a
// retune. Shapes are matched by (gfx, cu_num, shape_key); candidates by their key.

#include <string>
#include <string_view>
#include <vector>

#include "fhmoe/evidence/run_evidence.hpp"

namespace fhmoe::evidence {

enum class ChangeKind {
    shape_added,       // a shape only tonight's run has
    shape_removed,     // a shape only last night's run has
    decision_changed,  // e.g. retain -> incomplete
    // What serving uses after the run (the published candidate) is another one.
    published_changed,
    // The same candidate is published, and its time moved beyond the noise of both runs.
    published_time_moved,
    // The published candidate is the same, but the race's best challenger (the fastest ok
    // challenger, published or not) is another one: news about the search, not about serving.
    best_challenger_changed,
    new_failure,  // a candidate ok last night ends in a failure status tonight
};

std::string_view to_string(ChangeKind kind) noexcept;

struct DiffOptions {
    // A published time moved only if |new - old| > sigmas * sqrt(se_old^2 + se_new^2) and
    // |new - old| / old * 100 > min_pct: noise and tiny drifts are not news.
    double sigmas = 2.0;
    double min_pct = 1.0;
};

struct Change {
    ChangeKind kind = ChangeKind::shape_added;
    std::string shape;      // "gfx/cu_num/shape_key"
    std::string candidate;  // the candidate key, for new_failure
    std::string old_value;  // what last night had ("" when not applicable)
    std::string new_value;  // what tonight has
    std::string detail;     // numbers behind the verdict, or the failure's detail text
};

// Every change, shapes in tonight's order (removed shapes last), at most one entry of each
// kind per shape (new_failure: one per candidate). Empty when nothing changed.
std::vector<Change> diff_evidence(const RunEvidence& old_run, const RunEvidence& new_run,
                                  const DiffOptions& options = {});

// "gfx/cu_num/shape_key": how diff and the CLI name a shape across runs.
std::string shape_identity(const ShapeRecord& shape);

}  // namespace fhmoe::evidence
