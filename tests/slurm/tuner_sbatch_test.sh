#!/usr/bin/env bash
# `sbatch --wait slurm/fhmoe_tune.sbatch` with the small shapes and the CPU backend: the job
# completes, its 4 ranks got 4 different devices, and the per-job outputs are valid (tuned
# CSV header and rows; the archive, beside the CSV, read with h5py).
# Usage: tuner_sbatch_test.sh <fhmoe_tune_mpi binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
tuner=${1:?usage: $0 <fhmoe_tune_mpi binary>}
require_tuner "$tuner"
require_small_shapes
work=$(fresh_work_dir "$test_name")

sbatch_exit=0
job=$(FHMOE_TUNE_BIN=$tuner FHMOE_BACKEND=cpu FHMOE_INPUT=$small_shapes \
  FHMOE_OUTPUT_DIR=$work/out FHMOE_TUNER_ARGS=$quick_tuner_args \
  sbatch --wait --parsable --chdir="$work" --output="$work/job-%j.out" \
  "$FHMOE_SOURCE_DIR/slurm/fhmoe_tune.sbatch") || sbatch_exit=$?
job=${job%%;*}
[ -n "$job" ] || fail "sbatch printed no job id"
submitted_jobs+=("$job")
tail -n 60 "$work/job-$job.out"
# sbatch --wait returns the job's exit status: 0 is the tuner's "every shape decided". (Its
# JobState is not asked for: Slurm may purge a requeued job's record soon after it ends.)
[ "$sbatch_exit" -eq 0 ] || fail "job $job exited with status $sbatch_exit"

outputs=$work/out/$job
for output in tuned_fhmoe.csv tuned_fhmoe.h5 tuned_fhmoe.journal; do
  [ -s "$outputs/$output" ] || fail "$outputs/$output missing or empty"
done
python_checks csv "$outputs/tuned_fhmoe.csv" || fail "tuned CSV invalid"
python_checks h5 "$outputs/tuned_fhmoe.h5" || fail "archive unreadable"
devices=$(grep -o 'CUDA_VISIBLE_DEVICES=[^[:space:],;)]*' "$work/job-$job.out" | sort -u | wc -l)
[ "$devices" -ge 4 ] || fail "the job log names $devices distinct CUDA_VISIBLE_DEVICES values, expected 4"
log "PASS: job $job wrote $outputs"
