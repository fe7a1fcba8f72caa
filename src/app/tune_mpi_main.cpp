// fhmoe_tune_mpi: the MPI-distributed tuner (issue #6 builds it). Until then this main only
// proves the launch path (MPI, the linked libraries) and says plainly that no tuning is done.

#include <mpi.h>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "fhmoe/cluster/mpi_environment.hpp"
#include "fhmoe/evidence/hdf5_library.hpp"
#include "fhmoe/exit_code.hpp"
#include "fhmoe/version.hpp"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int rank = fhmoe::cluster::world_rank();
    if (rank == 0) {
        std::printf("fhmoe_tune_mpi %s (gpu backend compiled: %s, HDF5 %s), %d MPI ranks\n",
                    std::string(fhmoe::version()).c_str(),
                    std::string(fhmoe::gpu_backend_compiled()).c_str(),
                    fhmoe::evidence::hdf5_library_version().c_str(), fhmoe::cluster::world_size());
        std::printf(
            "NOT IMPLEMENTED YET: the tuner (issue #6) does not exist in this build; "
            "no tuned CSV and no HDF5 archive were written.\n");
    }
    MPI_Finalize();
    return fhmoe::to_int(fhmoe::ExitCode::not_available);
}
