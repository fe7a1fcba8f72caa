#include "cluster/mpi_transport/member_loop.hpp"

#include <poll.h>

#include <spdlog/spdlog.h>

#include "fhmoe/error.hpp"

namespace fhmoe::cluster {

int run_member(const MemberContext& context) {
    supervisor::Supervisor& supervisor = *context.supervisor;
    MpiChannel& channel = *context.channel;
    channel.send(0, MessageTag::hello, encode_hello(context.hello));

    bool stop_requested = false;  // by a signal here or an interrupt from rank 0
    bool told_rank0 = false;
    std::optional<int> exit_code;
    while (!exit_code) {
        if (context.signals->requested() && !told_rank0) {
            spdlog::warn("rank {}: signal {} received; stopping the work in flight", context.rank,
                         context.signals->signal_number());
            stop_requested = true;
            supervisor.request_stop();
            channel.send(0, MessageTag::signalled, {});
            told_rank0 = true;
        }
        for (const auto& event : supervisor.poll(0)) {
            channel.send(0, tag_of(event), encode_event(event));
        }
        while (auto message = channel.try_receive(0)) {
            switch (message->tag) {
                case MessageTag::assign_chunk:
                    supervisor.start_chunk(decode_chunk(message->bytes));
                    if (stop_requested) supervisor.request_stop();
                    break;
                case MessageTag::assign_race:
                    supervisor.start_race(decode_race(message->bytes));
                    if (stop_requested) supervisor.request_stop();
                    break;
                case MessageTag::interrupt:
                    stop_requested = true;
                    supervisor.request_stop();
                    break;
                case MessageTag::stop: exit_code = decode_stop(message->bytes).exit_code; break;
                default:
                    throw InternalError("rank " + std::to_string(context.rank) + " received " +
                                        std::string(to_string(message->tag)) + " from rank 0");
            }
            if (exit_code) break;
        }
        channel.progress();
        if (exit_code) break;
        pollfd fds[2] = {{supervisor.wait_fd(), POLLIN, 0},
                         {context.signals->wait_fd(), POLLIN, 0}};
        ::poll(fds, told_rank0 ? 1 : 2, mpi_probe_interval_ms);
    }
    supervisor.shutdown();
    channel.drain();
    channel.send(0, MessageTag::stop_ack, {});
    channel.drain();
    return *exit_code;
}

}  // namespace fhmoe::cluster
