#include "fhmoe/cluster/mpi_environment.hpp"

#include <mpi.h>

#include <cstdlib>
#include <string>

namespace fhmoe::cluster {
namespace {

int env_int(const char* name, int fallback) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return fallback;
    char* end = nullptr;
    long value = std::strtol(text, &end, 10);
    return (end != nullptr && *end == '\0' && value >= 0) ? static_cast<int>(value) : fallback;
}

}  // namespace

int world_rank() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int world_size() {
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

std::string processor_name() {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    return std::string(name, static_cast<std::size_t>(length));
}

int local_rank() {
    int from_launcher = env_int("SLURM_LOCALID", -1);
    if (from_launcher < 0) from_launcher = env_int("OMPI_COMM_WORLD_LOCAL_RANK", -1);
    if (from_launcher >= 0) return from_launcher;
    MPI_Comm node_comm;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
    int rank = 0;
    MPI_Comm_rank(node_comm, &rank);
    MPI_Comm_free(&node_comm);
    return rank;
}

bool any_rank(bool mine) {
    int local = mine ? 1 : 0;
    int any = 0;
    MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    return any != 0;
}

}  // namespace fhmoe::cluster
