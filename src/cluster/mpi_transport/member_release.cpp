#include "cluster/mpi_transport/member_release.hpp"

#include <poll.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

namespace fhmoe::cluster {

bool release_member_ranks(MpiChannel& channel, int world_size, int exit_code,
                          const std::function<void(const IncomingMessage&)>& on_message,
                          std::chrono::seconds timeout) {
    for (int rank = 1; rank < world_size; ++rank) {
        channel.send(rank, MessageTag::stop, encode_stop(StopMessage{exit_code}));
    }
    std::vector<bool> acknowledged(static_cast<std::size_t>(world_size), false);
    acknowledged[0] = true;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    bool all = world_size <= 1;
    while (!all) {
        if (std::chrono::steady_clock::now() > deadline) {
            spdlog::error("some ranks did not acknowledge the stop within {} s", timeout.count());
            return false;
        }
        channel.progress();
        auto message = channel.try_receive();
        if (!message) {
            ::poll(nullptr, 0, mpi_probe_interval_ms);
            continue;
        }
        if (message->tag == MessageTag::stop_ack) {
            acknowledged[static_cast<std::size_t>(message->source)] = true;
            all = std::all_of(acknowledged.begin(), acknowledged.end(), [](bool a) { return a; });
        } else if (on_message) {
            on_message(*message);
        }
    }
    channel.drain();
    return true;
}

}  // namespace fhmoe::cluster
