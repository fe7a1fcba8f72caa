#include "fhmoe/supervisor/supervisor.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "chunk_job.hpp"
#include "fhmoe/family/shape.hpp"
#include "fhmoe/wall_clock.hpp"
#include "fhmoe/wire/fd_io.hpp"
#include "fhmoe/worker/protocol.hpp"
#include "race_job.hpp"
#include "worker_process.hpp"

namespace fhmoe::supervisor {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after_seconds(double seconds) {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(std::max(seconds, 0.0)));
}

std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g s", seconds);
    return text;
}

[[noreturn]] void system_error(const std::string& what) {
    throw Error(what + ": " + std::strerror(errno));
}

// Where the worker is in its life, as far as the current job is concerned.
enum class Phase {
    no_worker,  // none alive
    starting,   // spawned, waiting for hello
    ready,      // hello received, nothing in flight
    loading,    // load_shape sent
    running,    // a run_candidates / run_race in flight
};

}  // namespace

struct Supervisor::Impl {
    SupervisorConfig config;
    int epoll_fd = -1;
    int timer_fd = -1;

    std::optional<WorkerProcess> worker;
    tuning::MeasuredOn device;  // the current (or last) worker's identity
    Phase phase = Phase::no_worker;
    std::optional<wire::FrameDecoder> decoder;
    bool socket_closed = false;
    struct LoadedKey {
        family::ShapeKey shape;
        std::uint64_t seed;
    };
    std::optional<LoadedKey> loaded;

    std::unique_ptr<Job> job;
    std::uint32_t load_attempts = 0;  // for the job's current next item
    std::string last_load_failure;
    bool stop_requested = false;
    std::optional<Clock::time_point> phase_deadline;
    double phase_deadline_s = 0.0;
    std::optional<Clock::time_point> stop_deadline;
    bool wake_now = false;
    std::int64_t item_started_ns = 0;
    Clock::time_point load_started;

    std::vector<Event> pending;

    explicit Impl(SupervisorConfig c) : config(std::move(c)) {
        epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
        if (epoll_fd < 0) system_error("epoll_create1");
        timer_fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (timer_fd < 0) system_error("timerfd_create");
        watch(timer_fd);
        device.rank = config.rank;
    }

    ~Impl() {
        worker.reset();  // kills and reaps
        ::close(timer_fd);
        ::close(epoll_fd);
    }

    void watch(int fd) {
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.fd = fd;
        if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) system_error("epoll_ctl add");
    }
    void unwatch(int fd) { ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, nullptr); }

    // ---- deadlines: one timerfd armed at the earliest one, so wait_fd() wakes for it.

    void rearm_timer() {
        std::optional<Clock::time_point> next = phase_deadline;
        if (stop_deadline && (!next || *stop_deadline < *next)) next = stop_deadline;
        itimerspec spec{};
        if (wake_now) {
            spec.it_value.tv_nsec = 1;  // relative 1 ns: readable at once
            ::timerfd_settime(timer_fd, 0, &spec, nullptr);
            return;
        }
        if (next) {
            const auto since_epoch = next->time_since_epoch();
            const auto secs = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
            spec.it_value.tv_sec = secs.count();
            spec.it_value.tv_nsec =
                std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch - secs).count();
            if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
        }
        ::timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &spec, nullptr);
    }

    void set_phase(Phase next, std::optional<double> deadline_s) {
        phase = next;
        phase_deadline_s = deadline_s.value_or(0.0);
        phase_deadline = deadline_s ? std::optional(after_seconds(*deadline_s)) : std::nullopt;
        rearm_timer();
    }

    // ---- worker life

    void spawn_worker() {
        std::vector<std::string> args = {
            "--backend",        std::string(worker::backend_name(config.backend)),
            "--socket-fd",      std::to_string(worker::worker_socket_fd),
            "--supervisor-pid", std::to_string(::getpid())};
        args.insert(args.end(), config.worker_args.begin(), config.worker_args.end());
        worker.emplace(WorkerProcess::spawn(config.worker_executable, args));
        decoder.emplace(worker::protocol_version);
        socket_closed = false;
        loaded.reset();
        device = tuning::MeasuredOn{};
        device.rank = config.rank;
        device.worker_pid = worker->pid();
        watch(worker->socket_fd());
        watch(worker->pid_fd());
        set_phase(Phase::starting, config.startup_timeout_s);
    }

    // Kills (if needed) and reaps the worker; returns the description of how it ended.
    std::string retire_worker(const std::string& reason) {
        if (!worker) return reason;
        const int old_pid = worker->pid();
        if (!socket_closed) unwatch(worker->socket_fd());
        unwatch(worker->pid_fd());
        const int status = worker->kill_and_reap();
        worker.reset();
        decoder.reset();
        loaded.reset();
        const std::string full = reason.empty() ? describe_wait_status(status) : reason;
        pending.push_back(WorkerRestarted{old_pid, full});
        set_phase(Phase::no_worker, std::nullopt);
        return full;
    }

    void send(const worker::Command& command) {
        try {
            wire::write_all(worker->socket_fd(), worker::encode_command(command));
        } catch (const wire::WireError&) {
            // The worker is gone; its death arrives through the pidfd and is handled there.
        }
    }

    // ---- the job's progress

    void finish_job(bool stopped) {
        pending.push_back(job->done_event(stopped, device));
        job.reset();
        stop_requested = false;
        stop_deadline.reset();
        load_attempts = 0;
        rearm_timer();
    }

    void stop_now(const std::string& why) {
        if (worker && phase != Phase::ready) retire_worker("stopped: " + why);
        job->finish_rest_not_run("stopped before it ran (" + why + ")", device, pending);
        finish_job(true);
    }

    void advance() {
        if (!job) return;
        if (job->complete()) {
            finish_job(stop_requested);
            return;
        }
        if (stop_requested && phase != Phase::running) {
            stop_now("stop requested");
            return;
        }
        switch (phase) {
            case Phase::no_worker: spawn_worker(); return;
            case Phase::ready: break;
            default: return;  // waiting for the worker
        }
        if (!loaded || loaded->shape != job->shape() || loaded->seed != job->seed()) {
            send(worker::LoadShape{job->shape(), job->seed(), job->next_planned_index(),
                                   load_attempts});
            load_started = Clock::now();
            set_phase(Phase::loading, config.load_timeout_s);
            return;
        }
        send(job->next_command());
        item_started_ns = unix_ns_now();
        set_phase(Phase::running, job->item_timeout_s());
    }

    // The load (or the start of the worker that was to load) failed.
    void load_failed(const std::string& detail) {
        ++load_attempts;
        last_load_failure = detail;
        if (load_attempts >= config.max_load_attempts) {
            pending.push_back(
                ShapeLoadFailed{family::shape_key_string(job->shape()), detail, load_attempts});
            job->finish_rest_not_run(
                "shape load failed after " + std::to_string(load_attempts) + " attempts: " + detail,
                device, pending);
            finish_job(false);
        }
    }

    // The worker died, passed a deadline or broke the protocol.
    void worker_lost(tuning::Status in_flight_status, const std::string& reason) {
        const Phase lost_in = phase;
        const tuning::MeasuredOn lost_device = device;
        const std::string how = retire_worker(reason);
        if (!job) return;
        switch (lost_in) {
            case Phase::starting:
                load_failed("worker pid " + std::to_string(lost_device.worker_pid) + " " + how +
                            " before it was ready");
                break;
            case Phase::loading:
                load_failed("worker pid " + std::to_string(lost_device.worker_pid) + " " + how +
                            " while loading the shape");
                break;
            case Phase::running: {
                LostItem lost;
                lost.status = in_flight_status;
                lost.detail = "worker pid " + std::to_string(lost_device.worker_pid) + " " + how;
                lost.where = lost_device;
                lost.started_unix_ns = item_started_ns;
                lost.lost_unix_ns = unix_ns_now();
                job->on_item_lost(lost, pending);
                load_attempts = 0;
                if (stop_requested && job && !job->complete()) {
                    stop_now("stop requested");
                    return;
                }
                break;
            }
            default: break;
        }
        advance();
    }

    // ---- replies

    void on_reply(const worker::Reply& reply) {
        if (const auto* fatal = std::get_if<worker::WorkerFatal>(&reply)) {
            throw ProtocolViolation("worker reported: " + fatal->detail);
        }
        switch (phase) {
            case Phase::starting: {
                const auto* hello = std::get_if<worker::Hello>(&reply);
                if (hello == nullptr) throw ProtocolViolation("expected hello");
                device = hello->device;
                device.rank = config.rank;
                set_phase(Phase::ready, std::nullopt);
                advance();
                return;
            }
            case Phase::loading: on_load_reply(reply); return;
            case Phase::running: on_running_reply(reply); return;
            default: throw ProtocolViolation("unexpected message from an idle worker");
        }
    }

    void on_load_reply(const worker::Reply& reply) {
        if (const auto* ok = std::get_if<worker::ShapeLoadedReply>(&reply)) {
            loaded = LoadedKey{job->shape(), job->seed()};
            load_attempts = 0;
            pending.push_back(ShapeLoaded{ok->shape_key, ok->reference_digest, ok->bytes_in_use,
                                          ok->bytes_free, device, ok->seconds});
            set_phase(Phase::ready, std::nullopt);
            advance();
            return;
        }
        const auto* failed = std::get_if<worker::LoadFailed>(&reply);
        if (failed == nullptr) throw ProtocolViolation("expected the load's reply");
        // A fresh process for the retry: whatever the failed load left behind stays behind.
        retire_worker("shape load failed: " + failed->detail);
        load_failed(failed->detail);
        advance();
    }

    void on_running_reply(const worker::Reply& reply) {
        if (const auto* announced = std::get_if<worker::FaultAnnounced>(&reply)) {
            job->on_fault_announced(*announced);
            return;
        }
        const bool end_marker = std::holds_alternative<worker::RunDone>(reply) ||
                                std::holds_alternative<worker::RaceFinished>(reply);
        const bool poisoned = job->on_reply(reply, device, pending);
        if (end_marker) {
            set_phase(Phase::ready, std::nullopt);
            advance();
            return;
        }
        item_started_ns = unix_ns_now();
        set_phase(Phase::running, job->item_timeout_s());
        if (poisoned) {
            retire_worker("device fault reported by worker pid " +
                          std::to_string(device.worker_pid) + "; its context is not reused");
            if (stop_requested && !job->complete()) {
                stop_now("stop requested");
                return;
            }
            advance();
            return;
        }
        if (stop_requested && !job->complete()) stop_now("stop requested");
    }

    // ---- I/O

    // Reads what the socket has, handles every complete frame. Returns false when the worker
    // was lost while handling them.
    void drain_socket() {
        while (worker && !socket_closed) {
            std::uint8_t buffer[65536];
            const ssize_t n = ::recv(worker->socket_fd(), buffer, sizeof buffer, MSG_DONTWAIT);
            if (n < 0) {
                if (errno == EINTR) continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK) return;
                mark_socket_closed();
                return;
            }
            if (n == 0) {
                mark_socket_closed();
                return;
            }
            decoder->feed(std::span<const std::uint8_t>(buffer, static_cast<std::size_t>(n)));
            try {
                while (worker && decoder) {
                    std::optional<wire::Frame> frame = decoder->next();
                    if (!frame) break;
                    on_reply(worker::decode_reply(*frame));
                }
            } catch (const wire::WireError& error) {
                worker_lost(tuning::Status::crash, std::string("protocol error: ") + error.what());
                return;
            } catch (const ProtocolViolation& error) {
                worker_lost(tuning::Status::crash, std::string("protocol error: ") + error.what());
                return;
            }
        }
    }

    void mark_socket_closed() {
        socket_closed = true;
        unwatch(worker->socket_fd());
    }

    void check_death() {
        if (!worker) return;
        const std::optional<int> status = worker->try_reap();
        if (!status) return;
        // Everything the worker wrote before dying is in the socket: take it first.
        drain_socket();
        if (!worker) return;
        std::string reason = describe_wait_status(*status);
        if (decoder && decoder->mid_frame()) {
            reason += " mid-frame (" + std::to_string(decoder->buffered()) + " bytes buffered)";
        }
        worker_lost(tuning::Status::crash, reason);
    }

    void check_deadlines() {
        const auto now = Clock::now();
        if (stop_deadline && now >= *stop_deadline && job && phase == Phase::running) {
            stop_deadline.reset();
            worker_lost(tuning::Status::not_run, "stopped: in flight when the stop grace of " +
                                                     seconds_text(config.stop_grace_s) +
                                                     " ran out");
            return;
        }
        if (phase_deadline && now >= *phase_deadline) {
            const std::string what = phase == Phase::running   ? "the candidate deadline"
                                     : phase == Phase::loading ? "the load deadline"
                                                               : "the start-up deadline";
            const auto status = tuning::Status::timeout;
            const double limit = phase_deadline_s;
            phase_deadline.reset();
            worker_lost(status, "killed (SIGKILL) after " + what + " of " + seconds_text(limit) +
                                    " passed");
        }
    }

    void process() {
        std::uint64_t expirations = 0;
        while (::read(timer_fd, &expirations, sizeof expirations) > 0) {
        }
        wake_now = false;
        drain_socket();
        check_death();
        check_deadlines();
        rearm_timer();
    }

    std::vector<Event> poll(int timeout_ms) {
        if (pending.empty()) {
            epoll_event events[4];
            int ready = 0;
            do {
                ready = ::epoll_wait(epoll_fd, events, 4, timeout_ms);
            } while (ready < 0 && errno == EINTR);
            process();
        }
        std::vector<Event> out;
        out.swap(pending);
        return out;
    }
};

Supervisor::Supervisor(SupervisorConfig config)
    : impl_(std::make_unique<Impl>(std::move(config))) {}
Supervisor::~Supervisor() = default;

void Supervisor::start_chunk(Chunk chunk) {
    FHMOE_CHECK(idle(), "start_chunk while a chunk or race is in progress");
    impl_->job = std::make_unique<ChunkJob>(std::move(chunk));
    impl_->stop_requested = false;
    impl_->advance();
    impl_->wake_now = !impl_->pending.empty();
    impl_->rearm_timer();
}

void Supervisor::start_race(Race race) {
    FHMOE_CHECK(idle(), "start_race while a chunk or race is in progress");
    impl_->job = std::make_unique<RaceJob>(std::move(race));
    impl_->stop_requested = false;
    impl_->advance();
    impl_->wake_now = !impl_->pending.empty();
    impl_->rearm_timer();
}

int Supervisor::wait_fd() const { return impl_->epoll_fd; }

std::vector<Event> Supervisor::poll(int timeout_ms) { return impl_->poll(timeout_ms); }

bool Supervisor::idle() const { return !impl_->job && impl_->pending.empty(); }

void Supervisor::request_stop() {
    if (!impl_->job || impl_->stop_requested) return;
    impl_->stop_requested = true;
    if (impl_->phase == Phase::running) {
        impl_->stop_deadline = after_seconds(impl_->config.stop_grace_s);
    } else {
        impl_->stop_now("stop requested");
        impl_->wake_now = true;
    }
    impl_->rearm_timer();
}

void Supervisor::shutdown(std::chrono::milliseconds grace) {
    if (!impl_->worker) return;
    if (impl_->phase == Phase::ready && !impl_->job) {
        impl_->send(worker::Shutdown{});
        impl_->worker->wait_exit(static_cast<int>(grace.count()));
    }
    if (!impl_->socket_closed) impl_->unwatch(impl_->worker->socket_fd());
    impl_->unwatch(impl_->worker->pid_fd());
    impl_->worker->kill_and_reap();
    impl_->worker.reset();
    impl_->decoder.reset();
    impl_->loaded.reset();
    impl_->set_phase(Phase::no_worker, std::nullopt);
}

std::optional<int> Supervisor::worker_pid() const {
    if (!impl_->worker) return std::nullopt;
    return impl_->worker->pid();
}

}  // namespace fhmoe::supervisor
