#pragma once

// Thin, testable facts about the MPI world. MPI itself is initialised by the mains (or the
// MPI test main), never by library code.

#include <string>

namespace fhmoe::cluster {

int world_rank();
int world_size();
std::string processor_name();

// The rank among the ranks of this node, from the launcher (SLURM_LOCALID,
// OMPI_COMM_WORLD_LOCAL_RANK), or from a shared-memory split of MPI_COMM_WORLD.
int local_rank();

// Collective over MPI_COMM_WORLD: true on every rank when `mine` is true on any rank. For
// checks every rank makes before the run starts, so that all ranks stop together.
bool any_rank(bool mine);

}  // namespace fhmoe::cluster
