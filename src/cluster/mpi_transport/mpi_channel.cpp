#include "cluster/mpi_transport/mpi_channel.hpp"

#include <mpi.h>

#include <string>

#include "fhmoe/error.hpp"

namespace fhmoe::cluster {

struct MpiChannel::PendingSend {
    Bytes bytes;
    MPI_Request request = MPI_REQUEST_NULL;
};

MpiChannel::MpiChannel() = default;

MpiChannel::~MpiChannel() {
    try {
        drain();
    } catch (...) {
        // Nothing to report to from a destructor; MPI_Finalize would say more anyway.
    }
}

void MpiChannel::send(int destination, MessageTag tag, Bytes bytes) {
    pending_.push_back(
        std::make_unique<PendingSend>(PendingSend{std::move(bytes), MPI_REQUEST_NULL}));
    PendingSend& slot = *pending_.back();
    // MPI_Isend with a zero count still needs a valid pointer on some implementations.
    static std::uint8_t empty = 0;
    void* data = slot.bytes.empty() ? &empty : slot.bytes.data();
    const int rc = MPI_Isend(data, static_cast<int>(slot.bytes.size()), MPI_BYTE, destination,
                             static_cast<int>(tag), MPI_COMM_WORLD, &slot.request);
    if (rc != MPI_SUCCESS) {
        pending_.pop_back();
        throw Error("MPI_Isend of " + std::string(to_string(tag)) + " to rank " +
                    std::to_string(destination) + " failed");
    }
}

std::optional<IncomingMessage> MpiChannel::try_receive(int source) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(source == any_source ? MPI_ANY_SOURCE : source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
               &status);
    if (flag == 0) return std::nullopt;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    IncomingMessage message;
    message.source = status.MPI_SOURCE;
    message.bytes.resize(static_cast<std::size_t>(count));
    std::uint8_t empty = 0;
    MPI_Recv(count == 0 ? &empty : message.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE,
             status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!is_known_tag(status.MPI_TAG)) {
        throw InternalError("rank " + std::to_string(status.MPI_SOURCE) +
                            " sent a message with unknown tag " + std::to_string(status.MPI_TAG));
    }
    message.tag = static_cast<MessageTag>(status.MPI_TAG);
    return message;
}

void MpiChannel::progress() {
    for (auto it = pending_.begin(); it != pending_.end();) {
        int done = 0;
        MPI_Test(&(*it)->request, &done, MPI_STATUS_IGNORE);
        it = done != 0 ? pending_.erase(it) : std::next(it);
    }
}

void MpiChannel::drain() {
    for (auto& send : pending_) MPI_Wait(&send->request, MPI_STATUS_IGNORE);
    pending_.clear();
}

}  // namespace fhmoe::cluster
