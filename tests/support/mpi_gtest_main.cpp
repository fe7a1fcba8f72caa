// GoogleTest main for tests launched under mpiexec: MPI is initialised once for the whole
// binary, only rank 0 prints, and the exit status is the same on every rank (a failure on
// any rank fails the test everywhere, so mpiexec never reports a half-failed run as passed).

#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    ::testing::InitGoogleTest(&argc, argv);

    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
    }

    int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
    int any_failed = 0;
    MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && any_failed && !local_failed) {
        std::fprintf(stderr, "[mpi_gtest_main] a test failed on another rank\n");
    }
    MPI_Finalize();
    return any_failed;
}
