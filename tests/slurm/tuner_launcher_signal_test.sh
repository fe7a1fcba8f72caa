#!/usr/bin/env bash
# Signals to `srun` itself (issue #12, item 5): what a user's kill or Ctrl-C, or a batch
# system that signals only the launcher, does. Small shapes, sim backend, 2 ranks; every
# shape's third candidate hangs, so both ranks are busy when the signal comes:
#  0. the same run uninterrupted: the reference tuned CSV;
#  1. SIGTERM to srun: srun SIGKILLs the step at once ("forcing job termination"): exit 137
#     within seconds; the journal is intact up to its last flushed batch but not marked (a
#     SIGKILL leaves no time), and the archive rebuilt from it says so (exit_status -1);
#  2. SIGUSR1 to srun: srun passes it on to every rank and nothing else; the tuner stops in
#     order (2 s of grace for the hung candidates) and srun exits 3, the journal and the
#     archive say 3;
#  3. scancel --signal=USR1 to the job: every process of the step gets it (the workers
#     ignore it), the same orderly stop, exit 3;
# and after each, `srun ... --resume` finishes with exit 0 and the reference CSV, byte for
# byte (the sim backend's times depend only on the seed and the candidate).
# Usage: tuner_launcher_signal_test.sh <fhmoe_tune_mpi binary> <fhmoe_evidence binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
tuner=${1:?usage: $0 <fhmoe_tune_mpi binary> <fhmoe_evidence binary>}
evidence_tool=${2:?usage: $0 <fhmoe_tune_mpi binary> <fhmoe_evidence binary>}
require_tuner "$tuner"
require_small_shapes
work=$(fresh_work_dir "$test_name")
# Seconds a signalled launch may take to end (the USR1 case: 2 s of grace, the archive).
limit_s=20

# args <dir>: the run's flags; a timeout far beyond the test, so a hung candidate is still in
# flight at the signal.
args() {
  echo "-i $small_shapes -o $1/tuned.csv --journal $1/journal --evidence $1/evidence.h5" \
    "--backend sim --candidate-sample 6 --seed 3 --warmup 1 --iters 10 --rounds 3" \
    "--finalists 2 --timeout 60 --stop-grace 2"
}

# archive_exit_status <archive>: the run's exit status the archive records.
archive_exit_status() {
  /usr/bin/python3 -c 'import h5py, sys; print(int(h5py.File(sys.argv[1], "r").attrs["exit_status"]))' "$1"
}

log "0. the run uninterrupted"
mkdir -p "$work/reference"
# shellcheck disable=SC2046
srun -n 2 --chdir="$work/reference" "$tuner" $(args "$work/reference") \
  >"$work/reference/srun.out" 2>&1 || fail "the reference run failed: $(tail -n 20 "$work/reference/srun.out")"
[ -s "$work/reference/tuned.csv" ] || fail "the reference run wrote no tuned CSV"

# signal_mid_run <dir> <signal> [scancel]: starts the run with the hanging candidates, waits
# until it holds (the tuner's test hook: no new work after 8 journal records: both ranks have
# measured and are stuck on a hung candidate), sends <signal> to srun (with "scancel": to the
# job, `scancel --signal=<signal>`) and waits (bounded) for srun to end. Sets $status and
# $seconds.
signal_mid_run() {
  local dir=$1 signal=$2 how=${3:-kill} srun_pid start deadline job_name
  job_name=fhmoe-launcher-signal-$$-$signal
  mkdir -p "$dir"
  # shellcheck disable=SC2046
  FHMOE_TEST_HOLD_AFTER_JOURNAL_RECORDS=8 srun -n 2 --job-name="$job_name" --chdir="$dir" \
    "$tuner" $(args "$dir") --inject-fault hang@2 >"$dir/srun.out" 2>&1 &
  srun_pid=$!
  holding() { grep -q "test hook: holding work" "$dir/srun.out"; }
  if ! wait_until 120 holding; then
    kill -KILL "$srun_pid" 2>/dev/null || true
    fail "the run did not reach its hold point in 120 s: $(tail -n 20 "$dir/srun.out")"
  fi
  start=$SECONDS
  if [ "$how" = scancel ]; then
    scancel --signal="$signal" --name="$job_name" || fail "scancel --signal=$signal failed"
  else
    kill "-$signal" "$srun_pid"
  fi
  deadline=$((SECONDS + limit_s + 30))
  while kill -0 "$srun_pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  if kill -0 "$srun_pid" 2>/dev/null; then
    kill -KILL "$srun_pid" 2>/dev/null || true
    fail "srun still running $((limit_s + 30)) s after SIG$signal: $(tail -n 20 "$dir/srun.out")"
  fi
  status=0
  wait "$srun_pid" || status=$?
  seconds=$((SECONDS - start))
  tail -n 12 "$dir/srun.out"
  log "SIG$signal ($how): exit $status after ${seconds} s"
  [ "$seconds" -le "$limit_s" ] || fail "srun took $seconds s to end after SIG$signal"
}

# resume_matches_reference <dir>: --resume under srun finishes with the reference CSV.
resume_matches_reference() {
  local dir=$1 resume_status=0
  # shellcheck disable=SC2046
  srun -n 2 --chdir="$dir" "$tuner" $(args "$dir") --resume >"$dir/resume.out" 2>&1 ||
    resume_status=$?
  [ "$resume_status" -eq 0 ] || fail "--resume in $dir exited $resume_status: $(tail -n 20 "$dir/resume.out")"
  cmp "$work/reference/tuned.csv" "$dir/tuned.csv" ||
    fail "$dir/tuned.csv differs from the uninterrupted run's"
}

log "1. SIGTERM to srun"
dir=$work/sigterm
signal_mid_run "$dir" TERM
[ "$status" -eq 137 ] || fail "srun exited $status after SIGTERM, expected 137"
grep -q "forcing job termination" "$dir/srun.out" || fail "srun did not say it killed the step"
"$evidence_tool" rebuild "$dir/journal" --out "$dir/rebuilt.h5" >"$dir/rebuild.out" 2>&1 ||
  fail "the journal cannot be rebuilt: $(cat "$dir/rebuild.out")"
[ "$(archive_exit_status "$dir/rebuilt.h5")" -eq -1 ] ||
  fail "the journal of a SIGKILLed step claims an end: exit_status $(archive_exit_status "$dir/rebuilt.h5")"
resume_matches_reference "$dir"

log "2. SIGUSR1 to srun"
dir=$work/sigusr1
signal_mid_run "$dir" USR1
[ "$status" -eq 3 ] || fail "srun exited $status after SIGUSR1, expected the tuner's 3"
grep -q "signal 10 received" "$dir/srun.out" || fail "no rank said it got SIGUSR1"
[ "$(archive_exit_status "$dir/evidence.h5")" -eq 3 ] ||
  fail "the archive says exit_status $(archive_exit_status "$dir/evidence.h5"), expected 3"
"$evidence_tool" rebuild "$dir/journal" --out "$dir/rebuilt.h5" >"$dir/rebuild.out" 2>&1 ||
  fail "the journal cannot be rebuilt: $(cat "$dir/rebuild.out")"
[ "$(archive_exit_status "$dir/rebuilt.h5")" -eq 3 ] || fail "the journal is not marked interrupted"
resume_matches_reference "$dir"

log "3. scancel --signal=USR1 to the job"
dir=$work/scancel-usr1
signal_mid_run "$dir" USR1 scancel
[ "$status" -eq 3 ] || fail "srun exited $status after scancel --signal=USR1, expected 3"
[ "$(archive_exit_status "$dir/evidence.h5")" -eq 3 ] ||
  fail "the archive says exit_status $(archive_exit_status "$dir/evidence.h5"), expected 3"
resume_matches_reference "$dir"
log "PASS"
