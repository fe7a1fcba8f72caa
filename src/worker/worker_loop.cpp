#include "fhmoe/worker/worker_loop.hpp"

#include <unistd.h>

#include <chrono>
#include <new>
#include <string>

#include "fhmoe/family/shape.hpp"
#include "fhmoe/tuning/statistics.hpp"
#include "fhmoe/wall_clock.hpp"
#include "fhmoe/wire/fd_io.hpp"
#include "fhmoe/worker/protocol.hpp"
#include "fhmoe/worker/race_order.hpp"
#include "worker/measurement.hpp"

namespace fhmoe::worker {
namespace {

class Session {
public:
    Session(Backend& backend, const FaultPlan& faults, int fd)
        : backend_(backend), faults_(faults), fd_(fd) {}

    void send(const Reply& reply) { wire::write_all(fd_, encode_reply(reply)); }

    // Returns false when the worker must exit (shutdown, poisoned context).
    bool handle(const Command& command) {
        return std::visit([this](const auto& message) { return on(message); }, command);
    }

    int exit_status = worker_exit_ok;

private:
    bool on(const Shutdown&) { return false; }

    bool on(const LoadShape& load) {
        shape_key_ = family::shape_key_string(load.shape);
        loaded_ = false;
        if (auto fault = faults_.for_load(shape_key_, load.next_planned_index, load.attempt)) {
            send(LoadFailed{
                "data generation failed: injected fault " + fault->text() + " (fault injection)",
                true});
            return true;
        }
        const auto start = std::chrono::steady_clock::now();
        try {
            const LoadedShape loaded = backend_.load(load.shape, load.seed);
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            loaded_ = true;
            send(ShapeLoadedReply{shape_key_, loaded.reference_digest, loaded.bytes_in_use,
                                  backend_.free_bytes(), seconds});
        } catch (const std::bad_alloc&) {
            send(LoadFailed{"data generation failed: out of memory", false});
        } catch (const std::exception& error) {
            send(LoadFailed{std::string("data generation failed: ") + error.what(), false});
        }
        return true;
    }

    bool on(const RunCandidates& run) {
        if (!loaded_) {
            send(WorkerFatal{"run_candidates before a successful load_shape"});
            exit_status = worker_exit_protocol_error;
            return false;
        }
        // --search screen: the chunk's full measurements so far, carried over from an earlier
        // worker life of the same chunk and updated as this one measures.
        tuning::ScreenReferences references{run.screen.incumbent, run.screen.chunk_best};
        for (const CandidateToRun& candidate : run.candidates) {
            const bool is_incumbent = candidate.planned_index == run.screen.incumbent_planned_index;
            std::optional<ScreenRequest> screen;
            if (run.screen.settings.enabled && !is_incumbent) {
                screen = ScreenRequest{run.screen.settings, references};
            }
            CandidateResultReply reply;
            reply.planned_index = candidate.planned_index;
            tuning::CandidateResult& result = reply.result;
            result.shape_key = shape_key_;
            result.candidate = candidate.id;
            result.where = backend_.device();
            result.chunk = run.chunk_id;
            result.attempt = candidate.attempt;
            result.started_unix_ns = unix_ns_now();
            const auto fault =
                faults_.for_candidate(shape_key_, candidate.planned_index, candidate.attempt);
            backend_.set_measurement_context(0);
            MeasurementOutcome outcome = measure(
                backend_, candidate.config, run.settings, fault,
                [&](const FaultEntry& entry) {
                    send(FaultAnnounced{candidate.planned_index, entry.text()});
                },
                screen);
            result.finished_unix_ns = unix_ns_now();
            result.screen = outcome.screen;
            result.status = outcome.status;
            result.detail = std::move(outcome.detail);
            result.fault_injected = outcome.fault_injected;
            result.error = outcome.error;
            result.stages = outcome.stages;
            if (outcome.status == tuning::Status::ok) {
                result.timing = tuning::summarize_samples(outcome.samples_us);
            }
            if (run.screen.settings.enabled) {
                tuning::note_chunk_result(references, is_incumbent, result);
            }
            reply.context_poisoned = outcome.context_poisoned;
            send(reply);
            if (outcome.context_poisoned) {
                exit_status = worker_exit_poisoned;
                return false;
            }
        }
        send(RunDone{run.chunk_id});
        return true;
    }

    bool on(const RunRace& race) {
        if (!loaded_) {
            send(WorkerFatal{"run_race before a successful load_shape"});
            exit_status = worker_exit_protocol_error;
            return false;
        }
        std::vector<bool> out(race.total_contenders, false);
        std::vector<bool> skip(race.total_contenders, false);
        std::vector<const RaceContender*> by_position(race.total_contenders, nullptr);
        for (const RaceContender& c : race.contenders) {
            if (c.position < race.total_contenders) by_position[c.position] = &c;
        }
        for (std::uint32_t position : race.skip_in_first_round) {
            if (position < race.total_contenders) skip[position] = true;
        }
        for (std::uint32_t round = race.first_round; round < race.rounds; ++round) {
            for (std::uint32_t position : race_order(race.total_contenders, round)) {
                const RaceContender* contender = by_position[position];
                if (contender == nullptr || out[position]) continue;
                if (round == race.first_round && skip[position]) continue;
                const auto fault =
                    faults_.for_race_contender(shape_key_, contender->planned_index, race.attempt);
                backend_.set_measurement_context(round + 1);
                MeasurementOutcome outcome =
                    measure(backend_, contender->config, race.settings, fault,
                            [&](const FaultEntry& entry) {
                                send(FaultAnnounced{contender->planned_index, entry.text()});
                            });
                if (outcome.status != tuning::Status::ok) out[position] = true;
                send(RaceSample{round, position, outcome.status, std::move(outcome.detail),
                                outcome.fault_injected, outcome.context_poisoned,
                                std::move(outcome.samples_us)});
                if (outcome.context_poisoned) {
                    exit_status = worker_exit_poisoned;
                    return false;
                }
            }
        }
        send(RaceFinished{race.race_id});
        return true;
    }

    Backend& backend_;
    const FaultPlan& faults_;
    int fd_;
    std::string shape_key_;
    bool loaded_ = false;
};

}  // namespace

int serve(Backend& backend, const FaultPlan& faults, int socket_fd) {
    Session session(backend, faults, socket_fd);
    try {
        session.send(Hello{static_cast<std::int32_t>(::getpid()), std::string(backend.name()),
                           backend.device()});
        for (;;) {
            std::optional<wire::Frame> frame = wire::read_frame(socket_fd, protocol_version);
            if (!frame) return worker_exit_ok;  // the supervisor is gone
            Command command;
            try {
                command = decode_command(*frame);
            } catch (const wire::WireError& error) {
                session.send(WorkerFatal{std::string("bad command: ") + error.what()});
                return worker_exit_protocol_error;
            }
            if (!session.handle(command)) return session.exit_status;
        }
    } catch (const wire::FrameError& error) {
        try {
            session.send(WorkerFatal{std::string("bad command frame: ") + error.what()});
        } catch (const wire::WireError&) {
        }
        return worker_exit_protocol_error;
    } catch (const wire::WireError&) {
        return worker_exit_ok;  // the socket broke: the supervisor is gone or killed us
    }
}

}  // namespace fhmoe::worker
