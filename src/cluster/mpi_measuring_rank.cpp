#include "cluster/mpi_measuring_rank.hpp"

#include <string>

#include "cluster/mpi_transport/member_release.hpp"
#include "fhmoe/error.hpp"

namespace fhmoe::cluster {

void MpiMeasuringRank::start_chunk(supervisor::Chunk chunk) {
    channel_.send(rank_, MessageTag::assign_chunk, encode_chunk(chunk));
}

void MpiMeasuringRank::start_race(supervisor::Race race) {
    channel_.send(rank_, MessageTag::assign_race, encode_race(race));
}

void MpiMeasuringRank::interrupt() { channel_.send(rank_, MessageTag::interrupt, {}); }

std::vector<RankReport> MpiMeasuringRank::take_reports() {
    channel_.progress();
    std::vector<RankReport> reports;
    while (auto message = channel_.try_receive(rank_)) {
        switch (message->tag) {
            case MessageTag::hello: {
                HelloMessage hello = decode_hello(message->bytes);
                reports.emplace_back(RankJoined{std::move(hello.host), std::move(hello.backend),
                                                std::move(hello.device_binding)});
                break;
            }
            case MessageTag::signalled: reports.emplace_back(RankSignalled{}); break;
            // A rank acknowledges only the stop of release_measuring_members.
            case MessageTag::stop_ack: break;
            case MessageTag::rank_failed: {
                RankFailedMessage failed = decode_rank_failed(message->bytes);
                reports.emplace_back(RankFailed{failed.exit_code, std::move(failed.reason)});
                break;
            }
            case MessageTag::shape_loaded:
            case MessageTag::load_failed:
            case MessageTag::result:
            case MessageTag::chunk_done:
            case MessageTag::race_done:
            case MessageTag::worker_restarted:
                reports.emplace_back(decode_event(message->tag, message->bytes));
                break;
            default:
                throw InternalError("rank 0 received " + std::string(to_string(message->tag)) +
                                    " from rank " + std::to_string(message->source));
        }
    }
    return reports;
}

bool release_measuring_members(
    MpiChannel& channel, int world_size, int exit_code,
    const std::function<void(const supervisor::CandidateMeasured&)>& on_late_result) {
    return release_member_ranks(channel, world_size, exit_code,
                                [&](const IncomingMessage& message) {
                                    if (message.tag != MessageTag::result) return;
                                    const auto event = decode_event(message.tag, message.bytes);
                                    on_late_result(std::get<supervisor::CandidateMeasured>(event));
                                });
}

}  // namespace fhmoe::cluster
