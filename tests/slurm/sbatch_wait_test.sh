#!/usr/bin/env bash
# `sbatch --wait` of a trivial job: it blocks until the job ends, the job ran its 2 srun
# tasks in the directory it was given, and sbatch --wait returns the job's exit status (the
# tuner tests rely on that to see the tuner's exit code).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
work=$(fresh_work_dir "$test_name")
job_script=$FHMOE_SOURCE_DIR/tests/slurm/trivial_job.sbatch

submit_and_wait() {  # submit_and_wait <wanted exit>; sets $job
  local wanted=$1 sbatch_exit=0
  job=$(TRIVIAL_JOB_EXIT=$wanted sbatch --wait --parsable --chdir="$work" \
    --output="$work/job-%j.out" "$job_script") || sbatch_exit=$?
  job=${job%%;*}
  [ -n "$job" ] || fail "sbatch printed no job id"
  submitted_jobs+=("$job")
  [ "$sbatch_exit" -eq "$wanted" ] || fail "job $job should exit $wanted; sbatch --wait returned $sbatch_exit"
  [ -z "$(squeue -h -j "$job" -t PENDING,RUNNING 2>/dev/null)" ] || fail "sbatch --wait returned before job $job ended"
}

submit_and_wait 0
cat "$work/job-$job.out"
[ "$(job_field "$job" JobState)" = COMPLETED ] || fail "job $job state $(job_field "$job" JobState), expected COMPLETED"
grep -qx "job $job ran 2 tasks" "$work/marker-$job.txt" || fail "marker-$job.txt missing or wrong"
[ "$(grep -c '^[01]: ' "$work/job-$job.out")" -eq 2 ] || fail "expected output of srun tasks 0 and 1"

completed_job=$job
submit_and_wait 3
[ "$(job_field "$job" JobState)" = FAILED ] || fail "job $job state $(job_field "$job" JobState), expected FAILED"
log "PASS: job $completed_job completed; job $job's exit status 3 came back through sbatch --wait"
