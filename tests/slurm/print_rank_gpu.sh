#!/usr/bin/env bash
# srun runs this once per task: it reports which device Slurm gave the task, then becomes the
# program named by its arguments (so the MPI ranks are the tasks Slurm launched).
set -euo pipefail
echo "task ${SLURM_PROCID:-?} of ${SLURM_NTASKS:-?} on $(hostname -s): CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset}"
exec "$@"
