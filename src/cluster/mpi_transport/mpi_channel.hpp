#pragma once

// Typed messages over MPI_COMM_WORLD without blocking: every send is an MPI_Isend whose
// buffer is kept until it completes (so two ranks sending large messages to each other can
// never deadlock in MPI_Send's rendezvous), and receiving is MPI_Iprobe + MPI_Recv of what
// has already arrived. Messages of one sender are received in the order they were sent
// (MPI's non-overtaking rule, all receives match any tag): a chunk's results always arrive
// before its chunk_done.

#include <cstddef>
#include <list>
#include <memory>
#include <optional>

#include "cluster/mpi_transport/mpi_messages.hpp"

namespace fhmoe::cluster {

struct IncomingMessage {
    int source = -1;
    MessageTag tag = MessageTag::hello;
    Bytes bytes;
};

inline constexpr int any_source = -1;

// How long a rank sleeps in poll() between probes of the channel while it waits for MPI
// messages: short enough that a result or a stop is seen within milliseconds, long enough not
// to spin a core.
inline constexpr int mpi_probe_interval_ms = 5;

class MpiChannel {
public:
    MpiChannel();
    MpiChannel(const MpiChannel&) = delete;
    MpiChannel& operator=(const MpiChannel&) = delete;
    ~MpiChannel();  // waits for pending sends: MPI must not be finalized under them

    void send(int destination, MessageTag tag, Bytes bytes);
    // A message that has arrived (from `source`, or any), or nullopt without waiting. A tag
    // this protocol does not know is an InternalError: the peer speaks something else.
    std::optional<IncomingMessage> try_receive(int source = any_source);
    // Completes what it can of the pending sends.
    void progress();
    // Waits until every pending send has completed.
    void drain();
    std::size_t pending_sends() const { return pending_.size(); }

private:
    struct PendingSend;
    std::list<std::unique_ptr<PendingSend>> pending_;  // MPI types stay out of this header
};

}  // namespace fhmoe::cluster
