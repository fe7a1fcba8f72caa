#pragma once

// A chunk in progress: candidates are measured in order, so everything before `next_` has
// exactly one outcome and candidates_[next_] is the one in flight.

#include <optional>

#include "fhmoe/supervisor/chunk.hpp"
#include "fhmoe/tuning/screen.hpp"
#include "job.hpp"

namespace fhmoe::supervisor {

class ChunkJob final : public Job {
public:
    explicit ChunkJob(Chunk chunk) : chunk_(std::move(chunk)) {}

    const family::ShapeKey& shape() const override { return chunk_.shape; }
    std::uint64_t seed() const override { return chunk_.seed; }
    bool complete() const override { return next_ >= chunk_.candidates.size(); }
    std::int64_t next_planned_index() const override;
    worker::Command next_command() const override;
    double item_timeout_s() const override { return chunk_.candidate_timeout_s; }

    void on_fault_announced(const worker::FaultAnnounced& announced) override;
    bool on_reply(const worker::Reply& reply, const tuning::MeasuredOn& where,
                  std::vector<Event>& out) override;
    void on_item_lost(const LostItem& lost, std::vector<Event>& out) override;
    void finish_rest_not_run(const std::string& detail, const tuning::MeasuredOn& where,
                             std::vector<Event>& out) override;
    Event done_event(bool stopped, const tuning::MeasuredOn& where) override;

private:
    tuning::CandidateResult supervisor_result(const PlannedCandidate& candidate,
                                              tuning::Status status, std::string detail,
                                              const tuning::MeasuredOn& where) const;
    void emit(const PlannedCandidate& candidate, tuning::CandidateResult result,
              std::vector<Event>& out);
    // --search screen: keeps the chunk's full measurements the screen compares with.
    void note_screen_reference(std::int64_t planned_index, const tuning::CandidateResult& result);

    Chunk chunk_;
    std::size_t next_ = 0;
    std::optional<worker::FaultAnnounced> announced_;
    tuning::ScreenReferences screen_references_;
};

}  // namespace fhmoe::supervisor
