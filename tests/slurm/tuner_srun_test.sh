#!/usr/bin/env bash
# `srun -n 4 --gpus-per-task=1 fhmoe_tune_mpi` on the small shapes with the CPU backend: the
# run completes (exit 0), each rank logs a different CUDA_VISIBLE_DEVICES, and the tuned CSV
# and the HDF5 archive are written and readable.
# Usage: tuner_srun_test.sh <fhmoe_tune_mpi binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
tuner=${1:?usage: $0 <fhmoe_tune_mpi binary>}
require_tuner "$tuner"
require_small_shapes
work=$(fresh_work_dir "$test_name")

read -r -a extra_args <<<"$quick_tuner_args"
tuner_exit=0
# --label prefixes every line with the task number: the device check attributes lines to ranks.
srun -n 4 --gpus-per-task=1 --label --chdir="$work" "$tuner" -i "$small_shapes" \
  -o "$work/tuned_fhmoe.csv" --backend cpu --journal "$work/tuned_fhmoe.journal" \
  --evidence "$work/tuned_fhmoe.h5" "${extra_args[@]}" >"$work/srun.out" 2>&1 || tuner_exit=$?
tail -n 60 "$work/srun.out"
[ "$tuner_exit" -eq 0 ] || fail "srun fhmoe_tune_mpi exited with status $tuner_exit (0 = every shape decided)"
python_checks devices "$work/srun.out" 4 || fail "ranks did not each log their own CUDA_VISIBLE_DEVICES"
python_checks csv "$work/tuned_fhmoe.csv" || fail "tuned CSV invalid"
python_checks h5 "$work/tuned_fhmoe.h5" || fail "archive unreadable"
log "PASS"
