#include "fhmoe/evidence/evidence_diff.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "fhmoe/evidence/shape_rollup.hpp"

namespace fhmoe::evidence {
namespace {

struct ShapeView {
    const ShapeRecord* shape = nullptr;
    Decision decision = Decision::pending;
    const DecisionRecord* decision_record = nullptr;
    std::map<std::string, const CandidateRecord*> candidates;  // by candidate key
};

std::vector<ShapeView> shape_views(const RunEvidence& run) {
    const std::vector<ShapeRollup> rollups = roll_up_shapes(run);
    std::vector<ShapeView> views(run.shapes.size());
    for (std::size_t id = 0; id < views.size(); ++id) {
        views[id].shape = &run.shapes[id];
        views[id].decision = rollups[id].decision;
    }
    for (const DecisionRecord& decision : run.decisions) {
        views[decision.shape_id].decision_record = &decision;
    }
    for (const CandidateRecord& candidate : run.candidates) {
        views[candidate.shape_id].candidates[candidate.result.candidate.key()] = &candidate;
    }
    return views;
}

std::string format_us(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.3f us", value);
    return text;
}

std::string format_pct(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%+.2f%%", value);
    return text;
}

double stderr_or_zero(double value) { return std::isfinite(value) ? value : 0.0; }

// Published keys and times are those of /decisions (run_evidence.hpp): the incumbent's when
// retained, the best challenger's when promoted. A shape that published nothing on one night
// is reported by decision_changed alone.
void compare_published(const std::string& identity, const DecisionRecord& old_decision,
                       const DecisionRecord& new_decision, const DiffOptions& options,
                       std::vector<Change>& changes) {
    const std::string old_key = published_key(old_decision);
    const std::string new_key = published_key(new_decision);
    if (old_key.empty() || new_key.empty()) return;
    const double old_us = published_us(old_decision);
    const double new_us = published_us(new_decision);
    if (old_key != new_key) {
        changes.push_back(Change{ChangeKind::published_changed,
                                 identity,
                                 {},
                                 old_key,
                                 new_key,
                                 format_us(old_us) + " -> " + format_us(new_us)});
        return;
    }
    if (!old_decision.best_challenger_key.empty() && !new_decision.best_challenger_key.empty() &&
        old_decision.best_challenger_key != new_decision.best_challenger_key) {
        changes.push_back(Change{ChangeKind::best_challenger_changed, identity, new_key,
                                 old_decision.best_challenger_key, new_decision.best_challenger_key,
                                 format_us(old_decision.best_challenger_us) + " -> " +
                                     format_us(new_decision.best_challenger_us)});
    }
    if (!std::isfinite(old_us) || !std::isfinite(new_us) || old_us <= 0.0) return;
    const double delta = new_us - old_us;
    const double noise =
        options.sigmas * std::hypot(stderr_or_zero(published_stderr_us(old_decision)),
                                    stderr_or_zero(published_stderr_us(new_decision)));
    const double delta_pct = delta / old_us * 100.0;
    if (std::abs(delta) > noise && std::abs(delta_pct) > options.min_pct) {
        changes.push_back(Change{ChangeKind::published_time_moved, identity, new_key,
                                 format_us(old_us), format_us(new_us),
                                 format_pct(delta_pct) + ", noise " + format_us(noise)});
    }
}

void compare_candidates(const std::string& identity, const ShapeView& old_view,
                        const ShapeView& new_view, std::vector<Change>& changes) {
    for (const auto& [key, candidate] : new_view.candidates) {
        const tuning::Status status = candidate->result.status;
        if (status == tuning::Status::ok || !tuning::is_terminal(status)) continue;
        const auto old = old_view.candidates.find(key);
        if (old == old_view.candidates.end() || old->second->result.status != tuning::Status::ok) {
            continue;
        }
        changes.push_back(Change{ChangeKind::new_failure, identity, key, "ok",
                                 std::string(tuning::to_string(status)), candidate->result.detail});
    }
}

}  // namespace

std::string_view to_string(ChangeKind kind) noexcept {
    switch (kind) {
        case ChangeKind::shape_added: return "shape_added";
        case ChangeKind::shape_removed: return "shape_removed";
        case ChangeKind::decision_changed: return "decision_changed";
        case ChangeKind::published_changed: return "published_changed";
        case ChangeKind::published_time_moved: return "published_time_moved";
        case ChangeKind::best_challenger_changed: return "best_challenger_changed";
        case ChangeKind::new_failure: return "new_failure";
    }
    return "invalid";
}

std::string shape_identity(const ShapeRecord& shape) {
    return shape.device.gfx + "/" + std::to_string(shape.device.cu_num) + "/" + shape.shape_key;
}

std::vector<Change> diff_evidence(const RunEvidence& old_run, const RunEvidence& new_run,
                                  const DiffOptions& options) {
    const std::vector<ShapeView> old_views = shape_views(old_run);
    const std::vector<ShapeView> new_views = shape_views(new_run);
    std::map<std::string, const ShapeView*> old_by_identity;
    for (const ShapeView& view : old_views) old_by_identity[shape_identity(*view.shape)] = &view;

    std::vector<Change> changes;
    std::map<std::string, bool> seen;
    for (const ShapeView& new_view : new_views) {
        const std::string identity = shape_identity(*new_view.shape);
        seen[identity] = true;
        const auto old = old_by_identity.find(identity);
        if (old == old_by_identity.end()) {
            changes.push_back(Change{ChangeKind::shape_added,
                                     identity,
                                     {},
                                     {},
                                     std::string(to_string(new_view.decision)),
                                     {}});
            continue;
        }
        const ShapeView& old_view = *old->second;
        if (old_view.decision != new_view.decision) {
            const std::string reason =
                new_view.decision_record ? new_view.decision_record->reason : std::string();
            changes.push_back(Change{ChangeKind::decision_changed,
                                     identity,
                                     {},
                                     std::string(to_string(old_view.decision)),
                                     std::string(to_string(new_view.decision)),
                                     reason});
        }
        if (old_view.decision_record && new_view.decision_record) {
            compare_published(identity, *old_view.decision_record, *new_view.decision_record,
                              options, changes);
        }
        compare_candidates(identity, old_view, new_view, changes);
    }
    for (const ShapeView& old_view : old_views) {
        const std::string identity = shape_identity(*old_view.shape);
        if (!seen.contains(identity)) {
            changes.push_back(Change{ChangeKind::shape_removed,
                                     identity,
                                     {},
                                     std::string(to_string(old_view.decision)),
                                     {},
                                     {}});
        }
    }
    return changes;
}

}  // namespace fhmoe::evidence
