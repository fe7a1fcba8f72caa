#include "fhmoe/evidence/shape_rollup.hpp"

#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::evidence {
namespace {

void check_shape_id(std::uint32_t shape_id, std::size_t shapes, const char* table,
                    std::size_t row) {
    if (shape_id >= shapes) {
        throw InternalError(std::string(table) + "[" + std::to_string(row) + "] names shape " +
                            std::to_string(shape_id) + " but the run has " +
                            std::to_string(shapes) + " shapes");
    }
}

}  // namespace

std::vector<ShapeRollup> roll_up_shapes(const RunEvidence& evidence) {
    std::vector<ShapeRollup> rollups(evidence.shapes.size());
    std::vector<bool> decided(evidence.shapes.size(), false);
    for (std::size_t row = 0; row < evidence.candidates.size(); ++row) {
        const CandidateRecord& candidate = evidence.candidates[row];
        check_shape_id(candidate.shape_id, rollups.size(), "candidates", row);
        rollups[candidate.shape_id].status_counts.add(candidate.result.status);
    }
    for (std::size_t row = 0; row < evidence.decisions.size(); ++row) {
        const DecisionRecord& decision = evidence.decisions[row];
        check_shape_id(decision.shape_id, rollups.size(), "decisions", row);
        if (decided[decision.shape_id]) {
            throw InternalError("shape " + std::to_string(decision.shape_id) +
                                " has two decisions");
        }
        decided[decision.shape_id] = true;
        rollups[decision.shape_id].decision = decision.decision;
    }
    return rollups;
}

void check_consistent(const RunEvidence& evidence) {
    roll_up_shapes(evidence);
    for (std::size_t row = 0; row < evidence.candidates.size(); ++row) {
        const CandidateRecord& candidate = evidence.candidates[row];
        const std::string& expected = evidence.shapes[candidate.shape_id].shape_key;
        if (candidate.result.shape_key != expected) {
            throw InternalError("candidates[" + std::to_string(row) + "] has shape_key '" +
                                candidate.result.shape_key + "' but its shape " +
                                std::to_string(candidate.shape_id) + " is '" + expected + "'");
        }
    }
    for (std::size_t row = 0; row < evidence.race.size(); ++row) {
        check_shape_id(evidence.race[row].shape_id, evidence.shapes.size(), "race", row);
    }
    for (std::size_t row = 0; row < evidence.decisions.size(); ++row) {
        if (evidence.decisions[row].decision == Decision::pending) {
            throw InternalError("decisions[" + std::to_string(row) +
                                "] is pending: a shape without a decision has no row");
        }
    }
}

}  // namespace fhmoe::evidence
