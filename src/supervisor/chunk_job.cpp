#include "chunk_job.hpp"

#include "fhmoe/family/shape.hpp"

namespace fhmoe::supervisor {

std::int64_t ChunkJob::next_planned_index() const {
    return complete() ? -1 : chunk_.candidates[next_].planned_index;
}

worker::Command ChunkJob::next_command() const {
    worker::RunCandidates run;
    run.chunk_id = chunk_.chunk_id;
    run.settings = chunk_.measurement;
    for (std::size_t i = next_; i < chunk_.candidates.size(); ++i) {
        const PlannedCandidate& c = chunk_.candidates[i];
        run.candidates.push_back({c.planned_index, c.id, c.config, c.attempt});
    }
    run.screen.settings = chunk_.screen;
    if (chunk_.screen.enabled && !chunk_.candidates.empty()) {
        run.screen.incumbent_planned_index = chunk_.candidates.front().planned_index;
        run.screen.incumbent = screen_references_.incumbent;
        run.screen.chunk_best = screen_references_.chunk_best;
    }
    return run;
}

void ChunkJob::on_fault_announced(const worker::FaultAnnounced& announced) {
    if (complete() || announced.planned_index != chunk_.candidates[next_].planned_index) {
        throw ProtocolViolation("fault announced for candidate #" +
                                std::to_string(announced.planned_index) +
                                ", which is not the one in flight");
    }
    announced_ = announced;
}

bool ChunkJob::on_reply(const worker::Reply& reply, const tuning::MeasuredOn& where,
                        std::vector<Event>& out) {
    if (const auto* done = std::get_if<worker::RunDone>(&reply)) {
        if (!complete() || done->chunk_id != chunk_.chunk_id) {
            throw ProtocolViolation("run_done for chunk " + std::to_string(done->chunk_id) +
                                    " with " + std::to_string(chunk_.candidates.size() - next_) +
                                    " candidates of chunk " + std::to_string(chunk_.chunk_id) +
                                    " without a result");
        }
        return false;
    }
    const auto* measured = std::get_if<worker::CandidateResultReply>(&reply);
    if (measured == nullptr) throw ProtocolViolation("unexpected reply while running a chunk");
    if (complete() || measured->planned_index != chunk_.candidates[next_].planned_index) {
        throw ProtocolViolation("result for candidate #" + std::to_string(measured->planned_index) +
                                ", which is not the one in flight");
    }
    tuning::CandidateResult result = measured->result;
    result.where.rank = where.rank;
    note_screen_reference(measured->planned_index, result);
    emit(chunk_.candidates[next_], std::move(result), out);
    return measured->context_poisoned;
}

void ChunkJob::note_screen_reference(std::int64_t planned_index,
                                     const tuning::CandidateResult& result) {
    if (!chunk_.screen.enabled) return;
    tuning::note_chunk_result(screen_references_,
                              planned_index == chunk_.candidates.front().planned_index, result);
}

tuning::CandidateResult ChunkJob::supervisor_result(const PlannedCandidate& candidate,
                                                    tuning::Status status, std::string detail,
                                                    const tuning::MeasuredOn& where) const {
    tuning::CandidateResult result;
    result.shape_key = family::shape_key_string(chunk_.shape);
    result.candidate = candidate.id;
    result.status = status;
    result.detail = std::move(detail);
    result.where = where;
    result.attempt = candidate.attempt;
    return result;
}

void ChunkJob::emit(const PlannedCandidate& candidate, tuning::CandidateResult result,
                    std::vector<Event>& out) {
    result.chunk = chunk_.chunk_id;
    out.push_back(CandidateMeasured{chunk_.chunk_id, candidate.planned_index, std::move(result)});
    ++next_;
    announced_.reset();
}

void ChunkJob::on_item_lost(const LostItem& lost, std::vector<Event>& out) {
    if (complete()) return;
    const PlannedCandidate& candidate = chunk_.candidates[next_];
    std::string detail = lost.detail + " while running candidate #" +
                         std::to_string(candidate.planned_index) + " (" + candidate.id.key() + ")";
    const bool injected = announced_.has_value();
    if (injected) detail += "; injected fault " + announced_->fault + " (fault injection)";
    tuning::CandidateResult result =
        supervisor_result(candidate, lost.status, std::move(detail), lost.where);
    result.fault_injected = injected;
    result.started_unix_ns = lost.started_unix_ns;
    result.finished_unix_ns = lost.lost_unix_ns;
    emit(candidate, std::move(result), out);
}

void ChunkJob::finish_rest_not_run(const std::string& detail, const tuning::MeasuredOn& where,
                                   std::vector<Event>& out) {
    while (!complete()) {
        const PlannedCandidate& candidate = chunk_.candidates[next_];
        emit(candidate, supervisor_result(candidate, tuning::Status::not_run, detail, where), out);
    }
}

Event ChunkJob::done_event(bool stopped, const tuning::MeasuredOn&) {
    return ChunkDone{chunk_.chunk_id, stopped};
}

}  // namespace fhmoe::supervisor
