#include "cluster/coordinator.hpp"

#include <poll.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>

#include "cluster/mpi_transport/mpi_channel.hpp"
#include "cluster/run_state/chunk_planner.hpp"
#include "cluster/run_state/shape_decision.hpp"
#include "fhmoe/config/file_error.hpp"
#include "fhmoe/config/file_lock.hpp"
#include "fhmoe/error.hpp"
#include "fhmoe/exit_code.hpp"
#include "fhmoe/wall_clock.hpp"

namespace fhmoe::cluster {
namespace {

using Clock = std::chrono::steady_clock;

// With no other ranks, poll() only wakes for the progress line and the stop deadline.
constexpr int single_rank_poll_ms = 200;
// Beyond the workers' own stop grace: time for the last frames and messages to arrive.
constexpr double stop_margin_s = 5.0;

// The one journal record of a measured candidate, live or late. A worker that could not say
// which chunk a result belongs to leaves it to the chunk the result came with.
evidence::CandidateResultRecord result_record_of(const supervisor::CandidateMeasured& measured) {
    evidence::CandidateResultRecord record{measured.chunk_id, measured.planned_index,
                                           measured.result};
    if (record.result.chunk < 0) record.result.chunk = measured.chunk_id;
    return record;
}

}  // namespace

Coordinator::Coordinator(CoordinatorContext context)
    : c_(std::move(context)),
      started_(Clock::now()),
      progress_(c_.progress_terminal, c_.options->progress == ProgressMode::none,
                c_.options->status_interval_s) {
    FHMOE_CHECK(!c_.ranks.empty(), "a run without rank 0");
    shapes_.reserve(c_.header->shapes.size());
    for (const auto& planned : c_.header->shapes) {
        shape_index_[family::shape_key_string(planned.shape)] = shapes_.size();
        shapes_.emplace_back(planned);
    }
    ranks_.resize(c_.ranks.size());
    ranks_[0].ready = true;  // rank 0's own worker needs no hello
    ranks_[0].host = c_.local_host;
    ranks_[0].binding = c_.local_binding;
}

ShapeProgress& Coordinator::shape_by_key(const std::string& key) {
    auto it = shape_index_.find(key);
    if (it == shape_index_.end()) throw InternalError("a result for unplanned shape " + key);
    return shapes_[it->second];
}

void Coordinator::prepare(const std::vector<evidence::JournalRecord>& prior) {
    for (const auto& record : prior) {
        std::visit(
            [&](const auto& r) {
                using R = std::decay_t<decltype(r)>;
                if constexpr (std::is_same_v<R, evidence::ShapeLoadedRecord>) {
                    shape_by_key(r.shape_key).add_loaded(r);
                } else if constexpr (std::is_same_v<R, evidence::ShapeLoadFailedRecord>) {
                    shape_by_key(r.shape_key).add_load_failure(r);
                    next_work_id_ = std::max(next_work_id_, r.chunk_id + 1);
                } else if constexpr (std::is_same_v<R, evidence::CandidateResultRecord>) {
                    shape_by_key(r.result.shape_key).add_result(r);
                    next_work_id_ = std::max(next_work_id_, r.chunk_id + 1);
                } else if constexpr (std::is_same_v<R, evidence::RaceOutcomeRecord>) {
                    if (!r.stopped) shape_by_key(r.shape_key).race = r;
                    next_work_id_ = std::max(next_work_id_, r.race_id + 1);
                } else if constexpr (std::is_same_v<R, evidence::ShapeDecision>) {
                    // An incomplete decision is retried: that is what a resume is for.
                    if (is_final(r)) shape_by_key(r.shape_key).decision = r;
                }
            },
            record);
    }
    for (auto& shape : shapes_) {
        if (shape.decision) shape.release_candidate_state();
    }
    plan_missing_work();
}

void Coordinator::plan_missing_work() {
    std::size_t to_measure = 0;
    for (const auto& shape : shapes_) {
        if (shape.decision || !shape.planned().unsupported_reason.empty()) continue;
        to_measure += shape.missing_indexes().size();
    }
    const std::size_t chunk_size = c_.options->chunk_size.value_or(default_chunk_size(
        to_measure, world_size(), candidates_per_full_measurement(c_.options->policy)));
    ChunkSettings settings;
    settings.seed = c_.options->seed;
    settings.measurement = wire::measurement_settings(c_.options->policy.measurement);
    settings.candidate_timeout_s = c_.options->policy.measurement.timeout_s;
    settings.screen = wire::screen_settings(c_.options->policy);

    for (auto& shape : shapes_) {
        if (shape.decision) continue;
        if (!shape.planned().unsupported_reason.empty() || shape.digests().disagrees()) {
            settle(shape);
            continue;
        }
        // The shape's chunks are planned when a rank first takes one (work_queue.hpp), with
        // the ids reserved here, so they are the chunks planning them now would make.
        const std::size_t missing = shape.missing_indexes().size();
        const std::size_t chunks = chunk_count(missing, !shape.incumbent_terminal(), chunk_size);
        const std::int64_t first_id = next_work_id_;
        next_work_id_ += static_cast<std::int64_t>(chunks);
        to_measure_ += missing + chunks;  // every chunk measures the incumbent too
        shape.outstanding_work += chunks;
        const std::size_t index = shape_index_.at(shape.key());
        queue_.add(DeferredChunks{
            shape.key(), chunks, [this, index, chunk_size, settings, first_id] {
                const ShapeProgress& planned = shapes_[index];
                std::int64_t next_id = first_id;
                std::vector<WorkItem> items;
                for (auto& chunk :
                     plan_chunks(planned.planned(), planned.missing_indexes(),
                                 !planned.incumbent_terminal(), chunk_size, settings, next_id)) {
                    items.push_back(WorkItem{std::move(chunk), planned.key()});
                }
                return items;
            }});
        if (shape.outstanding_work == 0) settle(shape);
    }
    spdlog::info(
        "{} shapes to decide, {} chunks of up to {} candidates (plus the incumbent) queued",
        std::count_if(shapes_.begin(), shapes_.end(),
                      [](const ShapeProgress& s) { return !s.decision; }),
        queue_.size(), chunk_size);
}

void Coordinator::settle(ShapeProgress& shape) {
    if (shape.decision || shape.outstanding_work > 0) return;
    const auto& planned = shape.planned();
    if (!planned.unsupported_reason.empty()) {
        record_decision(shape, incomplete_decision(planned, "the family cannot run this shape: " +
                                                                planned.unsupported_reason));
        return;
    }
    if (shape.digests().disagrees()) {
        record_decision(shape, incomplete_decision(planned, *shape.digests().disagreement()));
        return;
    }
    const auto complete = shape.complete();
    if (complete && shape.race) {
        // A race that finished, even during a stop, decides: its samples are all there.
        record_decision(
            shape, decide_from_race(planned, *complete, *shape.race, c_.options->policy.promotion,
                                    c_.options->policy.finalist));
        return;
    }
    // A stop leaves what is missing to the resume, which retries it: no decision now.
    if (stopping_) return;
    if (!complete) {
        std::string reason = std::to_string(shape.counts()[tuning::Status::not_run]) +
                             " candidates were not measured";
        if (!shape.load_failures().empty())
            reason += " (shape load failed: " + shape.load_failures().back() + ")";
        record_decision(shape, incomplete_decision(planned, reason));
        return;
    }
    auto plan =
        plan_race(planned, *complete, shape.incumbent_by_chunk(), c_.options->policy.finalist);
    if (auto* decision = std::get_if<evidence::ShapeDecision>(&plan)) {
        record_decision(shape, std::move(*decision));
    } else {
        enqueue_race(shape, std::move(std::get<RaceLineup>(plan)));
    }
}

void Coordinator::enqueue_race(ShapeProgress& shape, RaceLineup lineup) {
    supervisor::Race race = race_for(std::move(lineup), c_.options->policy);
    race.race_id = next_work_id_++;
    race.shape = shape.planned().shape;
    race.seed = c_.options->seed;
    spdlog::debug("race {} of {}: {} contenders", race.race_id, shape.key(),
                  race.contenders.size());
    ++shape.outstanding_work;
    shape.race_planned = true;
    ++races_planned_;
    race_work_planned_ += race.contenders.size() * race.rounds;
    queue_.add(WorkItem{std::move(race), shape.key()});
}

void Coordinator::record_decision(ShapeProgress& shape, evidence::ShapeDecision decision) {
    c_.journal->append(decision);
    const auto level = decision.kind == evidence::DecisionKind::incomplete ||
                               decision.kind == evidence::DecisionKind::all_failed
                           ? spdlog::level::warn
                           : spdlog::level::info;
    spdlog::log(level, "{}: {} (published {}, margin {}, bar {:.2f}%, noise {:.2f}%): {}",
                shape.key(), evidence::to_string(decision.kind),
                decision.published ? decision.published->key() : std::string("-"),
                decision.margin_pct ? fmt::format("{:.2f}%", *decision.margin_pct) : "-",
                decision.bar_pct, decision.noise_floor_pct, decision.reason);
    shape.decision = std::move(decision);
    shape.release_candidate_state();
    if (is_final(*shape.decision) &&
        ++decided_since_checkpoint_ >= static_cast<std::size_t>(c_.options->policy.run.batch)) {
        checkpoint();
    }
}

void Coordinator::checkpoint() {
    c_.journal->sync();
    if (!c_.options->compare) {
        const auto rows = rows_to_publish(c_.device, final_decisions());
        try {
            const auto update = publish_rows(
                c_.options->tuned_path, rows,
                std::chrono::milliseconds(static_cast<long>(c_.options->lock_timeout_s * 1000)));
            rows_unpublished_ = false;
            rows_write_failed_ = false;
            if (update.written) {
                spdlog::info("{}: {} rows replaced, {} added, {} kept", c_.options->tuned_path,
                             update.replaced, update.added, update.kept);
            }
        } catch (const config::LockTimeoutError& error) {
            // Another tuner holds the CSV (perhaps a dead one on another host, which is never
            // broken silently). The decisions are in the journal: measuring goes on, the next
            // checkpoint tries again, and a run that ends unpublished exits 3 for --resume.
            rows_unpublished_ = true;
            rows_write_failed_ = false;
            spdlog::error("{} not written: {}", c_.options->tuned_path, error.what());
        } catch (const config::FileError& error) {
            // A full disk (or another I/O failure): the CSV is replaced atomically, so the
            // previous one is whole; the decisions are journaled (a journal on the same full
            // disk fails on its own). Measuring goes on as after a lock timeout and the next
            // checkpoint tries again; a run that ends unpublished exits 5.
            rows_unpublished_ = true;
            rows_write_failed_ = true;
            spdlog::error("{} not written: {}", c_.options->tuned_path, error.what());
        }
    }
    if (c_.on_checkpoint) c_.on_checkpoint();
    decided_since_checkpoint_ = 0;
}

std::vector<DecidedShape> Coordinator::final_decisions() const {
    std::vector<DecidedShape> decided;
    for (const auto& shape : shapes_) {
        if (shape.decision && is_final(*shape.decision)) {
            decided.push_back(DecidedShape{&shape.planned(), &*shape.decision});
        }
    }
    return decided;
}

std::vector<ShapeOutcome> Coordinator::outcomes() const {
    std::vector<ShapeOutcome> outcomes;
    for (const auto& shape : shapes_) {
        outcomes.push_back(ShapeOutcome{&shape.planned(), shape.counts(), shape.decision});
    }
    return outcomes;
}

void Coordinator::dispatch() {
    if (c_.hooks.hold_work && c_.hooks.hold_work(c_.journal->records_flushed())) {
        if (!holding_) {
            spdlog::warn("test hook: holding work after {} journal records until a signal",
                         c_.journal->records_flushed());
        }
        holding_ = true;
        return;
    }
    for (int rank = 0; rank < world_size(); ++rank) {
        RankState& state = ranks_[static_cast<std::size_t>(rank)];
        if (!state.ready || state.signalled) continue;
        if (!c_.ranks[static_cast<std::size_t>(rank)]->has_room()) continue;
        std::optional<WorkItem> item;
        switch (what_rank_may_start(device_group_activity(rank), queue_.has_race())) {
            case RankMayStart::nothing: continue;
            case RankMayStart::a_race: item = queue_.take_race_for(state.loaded_shape); break;
            case RankMayStart::usual_work: item = queue_.take_for(state.loaded_shape); break;
        }
        if (!item) return;
        assign(rank, std::move(*item));
    }
}

DeviceGroupActivity Coordinator::device_group_activity(int rank) const {
    const auto group_of = [&](int r) {
        const RankState& state = ranks_[static_cast<std::size_t>(r)];
        return device_group(c_.options->backend, state.host, state.device_uuid, r);
    };
    const std::string group = group_of(rank);
    DeviceGroupActivity activity;
    activity.members = 0;
    for (int other = 0; other < world_size(); ++other) {
        if (group_of(other) != group) continue;
        ++activity.members;
        const RankState& state = ranks_[static_cast<std::size_t>(other)];
        if (!state.work_id) continue;
        if (other != rank) ++activity.busy_others;
        const auto flight = in_flight_.find(*state.work_id);
        if (flight != in_flight_.end() && flight->second.race) activity.racing = true;
    }
    return activity;
}

void Coordinator::assign(int rank, WorkItem item) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    const std::int64_t id = item.id();
    InFlight flight{rank, shape_index_.at(item.shape_key), 0, item.is_race()};
    if (auto* chunk = std::get_if<supervisor::Chunk>(&item.work)) {
        flight.candidates = chunk->candidates.size();
        spdlog::debug("chunk {} ({} candidates of {}) -> rank {}", id, chunk->candidates.size(),
                      item.shape_key, rank);
        c_.ranks[static_cast<std::size_t>(rank)]->start_chunk(std::move(*chunk));
    } else {
        auto& race = std::get<supervisor::Race>(item.work);
        spdlog::debug("race {} of {} -> rank {}", id, item.shape_key, rank);
        c_.ranks[static_cast<std::size_t>(rank)]->start_race(std::move(race));
    }
    in_flight_[id] = flight;
    state.ready = false;
    state.work_id = id;
    state.loaded_shape = item.shape_key;
}

void Coordinator::begin_stop(const std::string& why) {
    if (stopping_) return;
    stopping_ = true;
    stop_deadline_ =
        c_.now() + std::chrono::duration_cast<Clock::duration>(
                       std::chrono::duration<double>(c_.options->stop_grace_s + stop_margin_s));
    spdlog::warn("stopping: {}; {} chunks/races in flight get {:.0f} s to report", why,
                 in_flight_.size(), c_.options->stop_grace_s + stop_margin_s);
    // The checkpoint that matters comes first, within milliseconds of the signal: mpirun kills
    // the ranks about 2 s after it forwards a SIGTERM, before the grace below is over. The
    // journal then holds every result so far and says how this session ended; the archive
    // and the tuned CSV are rebuilt from it by --resume. The run's own end, if it gets there,
    // records its final word after this one.
    c_.journal->append(evidence::SessionEndedRecord{
        unix_seconds_now(), rank_failure_exit_code_.value_or(to_int(ExitCode::interrupted))});
    c_.journal->sync();
    for (MeasuringRank* rank : c_.ranks) rank->interrupt();
}

void Coordinator::finish_work(int rank, std::int64_t work_id) {
    auto it = in_flight_.find(work_id);
    if (it == in_flight_.end()) {
        throw InternalError("rank " + std::to_string(rank) + " finished unknown work " +
                            std::to_string(work_id));
    }
    ShapeProgress& shape = shapes_[it->second.shape];
    in_flight_.erase(it);
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    state.work_id.reset();
    state.ready = true;
    FHMOE_CHECK(shape.outstanding_work > 0, "work finished twice");
    --shape.outstanding_work;
    settle(shape);
}

void Coordinator::on_rank_failed(int rank, const RankFailed& failed) {
    spdlog::error("rank {} failed (exit {}): {}", rank, failed.exit_code, failed.reason);
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    state.failed = true;
    state.ready = false;
    if (!rank_failure_exit_code_) rank_failure_exit_code_ = failed.exit_code;
    // The stop first: the failed rank's work is then left to the resume, not decided
    // incomplete; what it reported before failing is journaled already.
    begin_stop("rank " + std::to_string(rank) + " failed");
    if (state.work_id) {
        const auto flight = in_flight_.find(*state.work_id);
        if (flight != in_flight_.end() && flight->second.race) {
            shapes_[flight->second.shape].race_planned = false;
        }
        finish_work(rank, *state.work_id);
        state.ready = false;
    }
}

void Coordinator::handle_event(int rank, const supervisor::Event& event) {
    std::visit(
        [&](const auto& e) {
            using E = std::decay_t<decltype(e)>;
            if constexpr (std::is_same_v<E, supervisor::ShapeLoaded>) {
                evidence::ShapeLoadedRecord record{e.shape_key, e.reference_digest, e.device,
                                                   e.seconds};
                record.device.rank = rank;
                c_.journal->append(record);
                // Info, not debug: a load is seconds of a GPU's time per shape (issue #16's
                // budget: < 2 s at DSV4 size), and bench/gpu_tune_throughput.sh reads these.
                spdlog::info("rank {} ({}, worker pid {}) loaded {} in {:.2f} s, digest {:016x}",
                             rank, e.device.host, e.device.worker_pid, e.shape_key, e.seconds,
                             e.reference_digest);
                RankState& state = ranks_[static_cast<std::size_t>(rank)];
                state.device_uuid = e.device.device_uuid;  // the quiet-race rule's device
                if (state.worker_pid != e.device.worker_pid) {
                    state.worker_pid = e.device.worker_pid;
                    spdlog::info("rank {} on {}: worker pid {} ({} device {}{})", rank,
                                 e.device.host, e.device.worker_pid, e.device.device_name,
                                 e.device.device_index,
                                 e.device.device_uuid.empty() ? std::string()
                                                              : ", uuid " + e.device.device_uuid);
                }
                ShapeProgress& shape = shape_by_key(e.shape_key);
                if (auto disagreement = shape.add_loaded(record)) {
                    spdlog::error("{}: {}; its results will not be compared", e.shape_key,
                                  *disagreement);
                    const std::size_t dropped = queue_.drop_shape(e.shape_key);
                    shape.outstanding_work -= dropped;
                    settle(shape);
                }
            } else if constexpr (std::is_same_v<E, supervisor::ShapeLoadFailed>) {
                const RankState& state = ranks_[static_cast<std::size_t>(rank)];
                evidence::ShapeLoadFailedRecord record{e.shape_key, state.work_id.value_or(-1),
                                                       rank,        state.host,
                                                       e.detail,    e.attempts};
                c_.journal->append(record);
                spdlog::warn("rank {}: loading {} failed after {} attempts: {}", rank, e.shape_key,
                             e.attempts, e.detail);
                shape_by_key(e.shape_key).add_load_failure(record);
            } else if constexpr (std::is_same_v<E, supervisor::CandidateMeasured>) {
                const evidence::CandidateResultRecord record = result_record_of(e);
                c_.journal->append(record);
                shape_by_key(record.result.shape_key).add_result(record);
                ++measured_;
            } else if constexpr (std::is_same_v<E, supervisor::ChunkDone>) {
                finish_work(rank, e.chunk_id);
            } else if constexpr (std::is_same_v<E, supervisor::RaceDone>) {
                auto it = in_flight_.find(e.race_id);
                FHMOE_CHECK(it != in_flight_.end(), "race_done for unknown race");
                ShapeProgress& shape = shapes_[it->second.shape];
                evidence::RaceOutcomeRecord record;
                record.shape_key = shape.key();
                record.race_id = e.race_id;
                record.rounds_completed = e.rounds_completed;
                record.stopped = e.stopped;
                record.device = e.device;
                record.device.rank = rank;
                record.started_unix_ns = e.started_unix_ns;
                record.finished_unix_ns = e.finished_unix_ns;
                for (const auto& c : e.contenders) {
                    record.contenders.push_back(evidence::RaceContenderRecord{
                        c.planned_index, c.id, c.id == shape.incumbent_id(), c.status, c.detail,
                        c.samples_us});
                }
                c_.journal->append(record);
                shape.race_planned = false;
                ++races_done_;
                race_work_done_ += e.contenders.size() * record.rounds_completed;
                if (!record.stopped) shape.race = std::move(record);
                finish_work(rank, e.race_id);
            } else if constexpr (std::is_same_v<E, supervisor::WorkerRestarted>) {
                spdlog::warn("rank {}: worker {} replaced: {}", rank, e.old_pid, e.reason);
            }
        },
        event);
}

void Coordinator::handle_report(int rank, const RankReport& report) {
    RankState& state = ranks_.at(static_cast<std::size_t>(rank));
    if (const auto* event = std::get_if<supervisor::Event>(&report)) {
        handle_event(rank, *event);
    } else if (const auto* joined = std::get_if<RankJoined>(&report)) {
        state.host = joined->host;
        state.binding = joined->device_binding;
        state.ready = true;
        c_.journal->append(evidence::RankJoinedRecord{rank, joined->host, joined->device_binding});
        spdlog::info("rank {} on {}: backend {}, device {}", rank, joined->host, joined->backend,
                     joined->device_binding);
    } else if (std::holds_alternative<RankSignalled>(report)) {
        state.signalled = true;
        begin_stop("rank " + std::to_string(rank) + " was signalled");
    } else {
        on_rank_failed(rank, std::get<RankFailed>(report));
    }
}

void Coordinator::wait_for_activity() {
    std::vector<pollfd> fds;
    bool some_rank_polled = false;
    for (const MeasuringRank* rank : c_.ranks) {
        const int fd = rank->wait_fd();
        if (fd >= 0) {
            fds.push_back(pollfd{fd, POLLIN, 0});
        } else {
            some_rank_polled = true;
        }
    }
    // The signal pipe stays readable once signalled: watching it after the stop began would
    // turn this wait into a spin.
    if (!stopping_) fds.push_back(pollfd{c_.signals->wait_fd(), POLLIN, 0});
    const int timeout = some_rank_polled ? mpi_probe_interval_ms : single_rank_poll_ms;
    ::poll(fds.data(), fds.size(), timeout);
}

void Coordinator::after_batch() {
    c_.journal->flush();
    if (c_.hooks.after_journal_flush) c_.hooks.after_journal_flush(c_.journal->records_flushed());
    progress_.update(snapshot());
}

bool Coordinator::all_settled() const {
    return in_flight_.empty() && queue_.empty() &&
           std::all_of(shapes_.begin(), shapes_.end(),
                       [](const ShapeProgress& s) { return s.decision.has_value(); });
}

ProgressSnapshot Coordinator::snapshot() const {
    ProgressSnapshot s;
    s.measured = measured_;
    s.to_measure = to_measure_;
    // Shapes not decided and not raced yet will race, at most finalists + 1 contenders.
    const auto& finalist = c_.options->policy.finalist;
    const std::size_t to_race = static_cast<std::size_t>(std::count_if(
        shapes_.begin(), shapes_.end(),
        [](const ShapeProgress& p) { return !p.decision && !p.race_planned && !p.race; }));
    s.races_done = races_done_;
    s.races_total = races_planned_ + to_race;
    s.race_work_done = race_work_done_;
    s.race_work_total = std::max(race_work_planned_, race_work_done_) +
                        to_race * static_cast<std::size_t>(finalist.finalists + 1) *
                            static_cast<std::size_t>(finalist.rounds);
    s.shapes_total = shapes_.size();
    s.shapes_decided = static_cast<std::size_t>(
        std::count_if(shapes_.begin(), shapes_.end(),
                      [](const ShapeProgress& p) { return p.decision.has_value(); }));
    s.ranks = ranks_.size();
    s.ranks_busy = in_flight_.size();
    s.elapsed_s = std::chrono::duration<double>(Clock::now() - started_).count();
    return s;
}

RunEnd Coordinator::run() {
    while (true) {
        if (!stopping_ && c_.signals->requested()) {
            begin_stop("signal " + std::to_string(c_.signals->signal_number()) + " received");
        }
        if (!stopping_) dispatch();
        after_batch();
        if (!stopping_ && all_settled()) break;
        if (stopping_ && in_flight_.empty()) break;
        if (stopping_ && c_.now() > stop_deadline_) {
            spdlog::warn(
                "stop grace over with {} chunks/races unreported: a resume re-measures "
                "what they did not report",
                in_flight_.size());
            break;
        }
        wait_for_activity();
        for (std::size_t rank = 0; rank < c_.ranks.size(); ++rank) {
            for (const auto& report : c_.ranks[rank]->take_reports()) {
                handle_report(static_cast<int>(rank), report);
            }
        }
    }
    c_.journal->flush();
    progress_.finish(snapshot());
    return stopping_ ? RunEnd::interrupted : RunEnd::finished;
}

void Coordinator::record_late_result(const supervisor::CandidateMeasured& measured) {
    c_.journal->append(result_record_of(measured));
}

}  // namespace fhmoe::cluster
