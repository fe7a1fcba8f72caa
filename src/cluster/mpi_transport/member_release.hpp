#pragma once

// The end of a run for the other ranks: rank 0 sends each one `stop` with the run's exit
// code, and keeps receiving until every rank acknowledged. A rank acknowledges only after
// all of its own sends completed, so no rank can be left in MPI_Finalize under a send that
// rank 0 never received (a rendezvous send would hang there).

#include <chrono>
#include <functional>

#include "cluster/mpi_transport/mpi_channel.hpp"

namespace fhmoe::cluster {

inline constexpr std::chrono::seconds member_release_timeout{60};

// Messages other than stop_ack that arrive meanwhile go to `on_message` (late results).
// Returns false when some rank did not acknowledge within `timeout`.
bool release_member_ranks(MpiChannel& channel, int world_size, int exit_code,
                          const std::function<void(const IncomingMessage&)>& on_message,
                          std::chrono::seconds timeout = member_release_timeout);

}  // namespace fhmoe::cluster
