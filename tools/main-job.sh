#!/usr/bin/env bash
# The README's main job: install what is missing, build, and run fhmoe_tune_mpi with 4 MPI
# ranks on the CPU backend over the small shipped shape list. Outputs go to out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p out/demo
set +e
mpiexec -n 4 --oversubscribe build/ci/src/app/fhmoe_tune_mpi "$@"
status=$?
set -e
echo "main-job: fhmoe_tune_mpi exited with status $status"
exit "$status"
