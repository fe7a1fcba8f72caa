#!/usr/bin/env bash
# A node lost mid-run (issue #17): `srun -N 2 -n 4 fhmoe_tune_mpi` over the DSV4 shapes (sim);
# once rank 0 has journaled results of both nodes, fhmoe-n2 dies: its slurmd and every process
# in its namespaces (slurmstepd, ranks 2 and 3, their workers) get SIGKILL, as in a power loss.
#   1. the job ends within a bound, with a non-zero exit and Slurm's "Node failure on fhmoe-n2";
#      slurmctld has set fhmoe-n2 DOWN;
#   2. nothing measured is lost: the journal (on the shared filesystem) rebuilds into a partial
#      archive that holds the results measured on fhmoe-n2 before it died;
#   3. a `--resume` run on the surviving node (`srun -N 1 -n 2 -w fhmoe-n1`) finishes the night
#      with the decisions of an uninterrupted one-host run with the same seed, and keeps
#      fhmoe-n2's results instead of measuring them again.
# At the end fhmoe-n2's slurmd is started again (two-node-start.sh) for the tests that follow.
# Usage: two_node_node_loss_test.sh <fhmoe_tune_mpi binary> <fhmoe_evidence binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=two_node_lib.sh
source "$(dirname "$0")/two_node_lib.sh"
tuner=${1:?usage: $0 <fhmoe_tune_mpi binary> <fhmoe_evidence binary>}
evidence_tool=${2:?usage: $0 <fhmoe_tune_mpi binary> <fhmoe_evidence binary>}
require_tuner "$tuner"
work=$(fresh_work_dir "$test_name")
mkdir -p "$work/reference" "$work/lost"
state_dir=${FHMOE_SLURM2_STATE_DIR:?}
# slurmctld sets a silent node DOWN after SlurmdTimeout (10 s in slurm-two-node.conf.in) and
# the step's survivors get KillWait to stop: far below this bound on a loaded 2-core machine.
end_within_s=90

# The two-node run's job, by name (it is started in the background: srun prints no id).
job_name=$test_name-$$
restore_node2() {
  cancel_submitted_jobs
  scancel -n "$job_name" 2>/dev/null || true
  "$FHMOE_SOURCE_DIR/tools/local-slurm/two-node-start.sh" >"$work/restore.log" 2>&1 ||
    log "could not bring $node2 back: $(tail -n 5 "$work/restore.log")"
}
trap restore_node2 EXIT

log "reference: an uninterrupted one-host run"
# shellcheck disable=SC2046  # the run's flags, split on purpose
srun -N 1 -n 2 -w "$node1" --mpi=pmix --chdir="$work/reference" "$tuner" $(dsv4_run_args "$work/reference") \
  >"$work/reference/srun.out" 2>&1 || fail "the reference run failed: $(tail -n 20 "$work/reference/srun.out")"

log "two-node run; $node2 dies once rank 0 holds its work"
# The tuner's test hook: rank 0 stops handing out work after this many journal records, until
# a signal comes (a --resume run ignores it), so the node dies mid-run however fast the sim
# backend is. By then both nodes' ranks have reported results.
hold_records=${FHMOE_SLURM_TEST_LOSS_HOLD_RECORDS:-4000}
lost_exit=0
# shellcheck disable=SC2046
FHMOE_TEST_HOLD_AFTER_JOURNAL_RECORDS=$hold_records srun_two_nodes --job-name="$job_name" --chdir="$work/lost" "$tuner" \
  $(dsv4_run_args "$work/lost") --stop-grace 2 >"$work/lost/srun.out" 2>&1 &
srun_pid=$!
holding() { grep -q 'test hook: holding work' "$work/lost/srun.out"; }
wait_until 120 holding || {
  kill "$srun_pid" 2>/dev/null || true
  fail "rank 0 did not reach $hold_records journal records in 120 s: $(tail -n 20 "$work/lost/srun.out")"
}
mapfile -t doomed < <(ip netns pids "$node2")
slurmd2_pidfile=$state_dir/run/slurmd-$node2.pid
[ -s "$slurmd2_pidfile" ] || fail "no pidfile $slurmd2_pidfile"
log "killing $node2: slurmd $(<"$slurmd2_pidfile") and ${#doomed[@]} process(es) in its namespaces"
kill -KILL "$(<"$slurmd2_pidfile")" "${doomed[@]}"
killed_at=$SECONDS

srun_ended() { ! kill -0 "$srun_pid" 2>/dev/null; }
wait_until "$end_within_s" srun_ended || {
  kill "$srun_pid" 2>/dev/null || true
  fail "the job still runs $end_within_s s after $node2 died"
}
wait "$srun_pid" || lost_exit=$?
ended_after=$((SECONDS - killed_at))
grep -v -E ': (promote|retain) \(' "$work/lost/srun.out" | tail -n 25
log "1. the job ended $ended_after s after the node died, srun exit $lost_exit"
[ "$lost_exit" -ne 0 ] || fail "srun exited 0 although $node2 died mid-run"
grep -q "Node failure on $node2" "$work/lost/srun.out" || fail "no 'Node failure on $node2' in the job's output"
lost_job=$(squeue -h -t all -n "$job_name" -o %i | head -n 1)
[ -n "$lost_job" ] || fail "slurmctld lists no job named $job_name"
[ "$(job_field "$lost_job" JobState)" = NODE_FAIL ] ||
  fail "job $lost_job ended $(job_field "$lost_job" JobState), expected NODE_FAIL"
if grep -q 'interrupted: decided shapes are published; run again with --resume' "$work/lost/srun.out"; then
  log "rank 0 journaled its stop and published the decided shapes before the step was killed"
else
  log "note: rank 0 was killed before it could say it stopped (KillWait too short on this machine)"
fi

log "2. the journal holds what both nodes measured"
"$evidence_tool" rebuild "$work/lost/tuned_fhmoe.journal" --out "$work/lost/partial.h5" \
  >"$work/lost/rebuild.out" 2>&1 || fail "rebuild of the journal failed: $(cat "$work/lost/rebuild.out")"
python_checks measured-on "$work/lost/partial.h5" "$node2" || fail "the journal lost $node2's results"

log "3. --resume on the surviving node"
resume_exit=0
# shellcheck disable=SC2046
srun -N 1 -n 2 -w "$node1" --mpi=pmix --chdir="$work/lost" "$tuner" $(dsv4_run_args "$work/lost") --resume \
  >"$work/lost/resume.out" 2>&1 || resume_exit=$?
grep -v -E ': (promote|retain) \(' "$work/lost/resume.out" | tail -n 8
[ "$resume_exit" -eq 0 ] || fail "the --resume run on $node1 exited $resume_exit"
python_checks decisions --strict-kernels "$work/reference/tuned_fhmoe.csv" "$work/lost/tuned_fhmoe.csv" ||
  fail "the resumed night decided differently from the uninterrupted one-host run"
python_checks measured-on "$work/lost/tuned_fhmoe.h5" "$node2" ||
  fail "the resumed night's archive dropped the results measured on $node2 before it died"
log "PASS: job ended $ended_after s after the loss (exit $lost_exit); resumed on $node1 with the reference's decisions"
