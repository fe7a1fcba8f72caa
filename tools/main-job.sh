#!/usr/bin/env bash
# The README's main job: install what is missing, build, and tune the small shipped shapes
# with fhmoe_tune_mpi on 4 MPI ranks and the CPU backend (every rank measures through its own
# worker process). Outputs, all under out/demo/ (recreated on every run, so the job always
# tunes instead of finding every shape already tuned):
#   tuned_fhmoe.csv   the tuned CSV (rows at the serving lookup token, with us and err)
#   tune.journal      the append-only journal (`--resume` continues an interrupted run)
#   evidence.h5       the HDF5 evidence archive
#   tune.log          everything the ranks printed, ending with the per-shape summary
# Extra arguments are passed to fhmoe_tune_mpi (e.g. --candidate-sample 16).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf out/demo
mkdir -p out/demo
set +e
mpiexec -n 4 --oversubscribe build/ci/src/app/fhmoe_tune_mpi \
  -i configs/untuned_fhmoe_small.csv \
  -o out/demo/tuned_fhmoe.csv \
  --journal out/demo/tune.journal \
  --evidence out/demo/evidence.h5 \
  --backend cpu --candidate-sample 8 --seed 1 --warmup 2 --iters 10 \
  "$@" 2>&1 | tee out/demo/tune.log
status=${PIPESTATUS[0]}
set -e
echo "main-job: fhmoe_tune_mpi exited with status $status (0: every shape decided);" \
     "outputs in out/demo/"
exit "$status"
