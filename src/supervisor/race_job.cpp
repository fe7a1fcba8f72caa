#include "race_job.hpp"

#include <algorithm>

#include "fhmoe/error.hpp"
#include "fhmoe/tuning/race.hpp"
#include "fhmoe/wall_clock.hpp"
#include "fhmoe/worker/race_order.hpp"

namespace fhmoe::supervisor {
namespace {

// One repeat per contender: enough to survive a worker killed from outside (the OOM killer,
// a stray signal, a device reset) without letting a contender that kills every worker it
// runs on hold the race up.
constexpr std::uint32_t reruns_per_contender = 1;

}  // namespace

RaceJob::RaceJob(Race race)
    : race_(std::move(race)),
      left_race_(race_.contenders.size(), false),
      ran_this_round_(race_.contenders.size(), false),
      reruns_(race_.contenders.size(), 0),
      started_unix_ns_(unix_ns_now()) {
    tuning::FinalistPolicy batches;
    batches.rounds = static_cast<int>(race_.rounds);
    batches.max_rounds =
        race_.adaptive ? static_cast<int>(race_.adaptive->max_rounds) : batches.rounds;
    looks_ = tuning::race_looks(batches);
    FHMOE_CHECK(!race_.adaptive || race_.adaptive->incumbent_position < total(),
                "adaptive race's incumbent position is not a contender");
    target_rounds_ = static_cast<std::uint32_t>(looks_.front());
    for (const PlannedCandidate& c : race_.contenders) {
        ContenderOutcome outcome;
        outcome.planned_index = c.planned_index;
        outcome.id = c.id;
        outcome.samples_us.resize(target_rounds_);
        outcomes_.push_back(std::move(outcome));
    }
    skip_finished_rounds();
}

bool RaceJob::complete() const { return stopped_early_ || round_ >= target_rounds_; }

bool RaceJob::at_batch_end() const {
    return complete() || std::find(looks_.begin(), looks_.end(), round_) != looks_.end();
}

bool RaceJob::needs_another_batch() const {
    if (!race_.adaptive || round_ != target_rounds_ || target_rounds_ >= looks_.back()) {
        return false;
    }
    const AdaptiveRounds& adaptive = *race_.adaptive;
    std::vector<tuning::RaceContender> contenders;
    for (std::uint32_t p = 0; p < total(); ++p) {
        tuning::RaceContender contender;
        contender.candidate = outcomes_[p].id;
        contender.is_incumbent = p == adaptive.incumbent_position;
        // Still in the race: ran every round so far. A contender that left has its status
        // only in done_event; here it simply is not ok.
        contender.status = left_race_[p] ? tuning::Status::not_run : tuning::Status::ok;
        if (!left_race_[p])
            contender.round_means_us = tuning::round_means_of(outcomes_[p].samples_us);
        contenders.push_back(std::move(contender));
    }
    tuning::PromotionPolicy policy;
    policy.min_improvement_pct = adaptive.min_improvement_pct;
    policy.false_promotion_rate = adaptive.false_promotion_rate;
    policy.lower_bound_gate = adaptive.lower_bound_gate;
    return tuning::race_needs_more_rounds(tuning::summarize_race(contenders, policy, looks_),
                                          policy);
}

std::optional<std::uint32_t> RaceJob::in_flight() const {
    if (complete()) return std::nullopt;
    for (std::uint32_t position : worker::race_order(total(), round_)) {
        if (!left_race_[position] && !ran_this_round_[position]) return position;
    }
    return std::nullopt;
}

void RaceJob::skip_finished_rounds() {
    while (round_ < target_rounds_ && !in_flight()) {
        ++round_;
        std::fill(ran_this_round_.begin(), ran_this_round_.end(), false);
        if (std::all_of(left_race_.begin(), left_race_.end(), [](bool left) { return left; })) {
            round_ = target_rounds_;  // nobody left to race
            return;
        }
        if (round_ == target_rounds_ && needs_another_batch()) {
            const auto next = std::upper_bound(looks_.begin(), looks_.end(), round_);
            target_rounds_ = static_cast<std::uint32_t>(*next);
            for (ContenderOutcome& outcome : outcomes_) outcome.samples_us.resize(target_rounds_);
        }
    }
}

void RaceJob::finish_item(std::uint32_t position) {
    ran_this_round_[position] = true;
    announced_.reset();
    skip_finished_rounds();
}

std::int64_t RaceJob::next_planned_index() const {
    const auto position = in_flight();
    return position ? race_.contenders[*position].planned_index : -1;
}

worker::Command RaceJob::next_command() const {
    worker::RunRace run;
    run.race_id = race_.race_id;
    run.settings = race_.measurement;
    run.total_contenders = total();
    for (std::uint32_t p = 0; p < total(); ++p) {
        if (left_race_[p]) continue;
        const PlannedCandidate& c = race_.contenders[p];
        run.contenders.push_back({p, c.planned_index, c.id, c.config});
        if (ran_this_round_[p]) run.skip_in_first_round.push_back(p);
    }
    run.first_round = round_;
    run.rounds = target_rounds_;
    run.attempt = lives_lost_;
    return run;
}

void RaceJob::on_fault_announced(const worker::FaultAnnounced& announced) {
    const auto position = in_flight();
    if (!position || race_.contenders[*position].planned_index != announced.planned_index) {
        throw ProtocolViolation("fault announced for contender #" +
                                std::to_string(announced.planned_index) +
                                ", which is not the one in flight");
    }
    announced_ = announced;
}

bool RaceJob::rerun_after_loss(std::uint32_t position, const std::string& why) {
    if (reruns_[position] >= reruns_per_contender) return false;
    ++reruns_[position];
    ++lives_lost_;  // the fresh worker's attempt number
    ContenderOutcome& outcome = outcomes_[position];
    if (!outcome.detail.empty()) outcome.detail += "; ";
    outcome.detail +=
        "round " + std::to_string(round_) + " run again on a fresh worker after: " + why;
    announced_.reset();
    return true;
}

bool RaceJob::on_reply(const worker::Reply& reply, const tuning::MeasuredOn&, std::vector<Event>&) {
    if (const auto* finished = std::get_if<worker::RaceFinished>(&reply)) {
        if (!at_batch_end() || finished->race_id != race_.race_id) {
            throw ProtocolViolation("race_finished for race " + std::to_string(finished->race_id) +
                                    " in round " + std::to_string(round_) + " of race " +
                                    std::to_string(race_.race_id) +
                                    ", which is not the end of a batch");
        }
        return false;  // the supervisor sends the next batch if the job is not complete
    }
    const auto* sample = std::get_if<worker::RaceSample>(&reply);
    if (sample == nullptr) throw ProtocolViolation("unexpected reply while racing");
    const auto position = in_flight();
    if (!position || sample->position != *position || sample->round != round_) {
        throw ProtocolViolation("race sample for position " + std::to_string(sample->position) +
                                " round " + std::to_string(sample->round) +
                                ", which is not the run in flight");
    }
    ContenderOutcome& outcome = outcomes_[*position];
    if (sample->status == tuning::Status::ok) {
        outcome.samples_us[round_] = sample->samples_us;
    } else if (sample->context_poisoned &&
               rerun_after_loss(*position, "device fault: " + sample->detail)) {
        return true;  // the supervisor retires the worker; the next life runs it again
    } else {
        outcome.status = sample->status;
        if (!outcome.detail.empty()) outcome.detail += "; ";
        outcome.detail += "round " + std::to_string(round_) + ": " + sample->detail;
        left_race_[*position] = true;
    }
    finish_item(*position);
    return sample->context_poisoned;
}

void RaceJob::on_item_lost(const LostItem& lost, std::vector<Event>&) {
    const auto position = in_flight();
    if (!position) return;
    if (lost.status == tuning::Status::not_run) {
        ++lives_lost_;
        stopped_early_ = true;  // a stop: the contender is not at fault
        return;
    }
    std::string why = lost.detail;
    if (announced_) why += " (injected fault " + announced_->fault + ")";
    if (rerun_after_loss(*position, why)) return;
    ++lives_lost_;
    ContenderOutcome& outcome = outcomes_[*position];
    outcome.status = lost.status;
    if (!outcome.detail.empty()) outcome.detail += "; ";
    outcome.detail += "round " + std::to_string(round_) + ": " + lost.detail;
    if (announced_)
        outcome.detail += "; injected fault " + announced_->fault + " (fault injection)";
    left_race_[*position] = true;
    finish_item(*position);
}

void RaceJob::finish_rest_not_run(const std::string& detail, const tuning::MeasuredOn&,
                                  std::vector<Event>&) {
    for (std::uint32_t p = 0; p < total(); ++p) {
        if (!left_race_[p]) {
            outcomes_[p].status = tuning::Status::not_run;
            outcomes_[p].detail = detail;
            left_race_[p] = true;
        }
    }
    stopped_early_ = true;
}

Event RaceJob::done_event(bool stopped, const tuning::MeasuredOn& where) {
    RaceDone done;
    done.race_id = race_.race_id;
    done.rounds_completed = std::min(round_, target_rounds_);
    done.stopped = stopped;
    done.device = where;
    done.started_unix_ns = started_unix_ns_;
    done.finished_unix_ns = unix_ns_now();
    for (std::uint32_t p = 0; p < total(); ++p) {
        if (!left_race_[p]) outcomes_[p].status = tuning::Status::ok;
    }
    done.contenders = outcomes_;
    return done;
}

}  // namespace fhmoe::supervisor
