#!/usr/bin/env bash
# Fatal errors after start-up under `srun` (issue #12, item 2): every rank ends within seconds
# with exit 2, and the outputs of an earlier run are byte-identical afterwards.
#  1. ranks 1-3 cannot start their worker program (an executable whose interpreter is
#     missing on "their node", so it passes the up-front checks; srun --multi-prog): they
#     tell rank 0, which checkpoints and stops the run;
#  2. rank 0's journal hits a real full disk (a 24 KiB tmpfs) mid-run: rank 0 stops the
#     other ranks. Skipped (with the reason) where a tmpfs cannot be mounted.
# Usage: tuner_fatal_error_test.sh <fhmoe_tune_mpi binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
tuner=${1:?usage: $0 <fhmoe_tune_mpi binary>}
require_tuner "$tuner"
require_small_shapes
work=$(fresh_work_dir "$test_name")
# Far below the hang this used to be (until the job's time limit), far above a loaded
# machine's start-up.
limit_s=60

# args <dir> <journal>: the run's flags (sim backend: seconds per run).
args() {
  echo "-i $small_shapes -o $1/tuned.csv --journal $2 --evidence $1/evidence.h5 --backend sim" \
    "--candidate-sample 48 --seed 13 --iters 10 --all"
}

# The outputs a failed run must not touch: a finished run's tuned CSV and archive.
mkdir -p "$work/earlier"
# shellcheck disable=SC2046
srun -n 2 --chdir="$work/earlier" "$tuner" $(args "$work/earlier" "$work/earlier/journal") \
  >"$work/earlier/srun.out" 2>&1 || fail "the earlier run failed: $(tail -n 20 "$work/earlier/srun.out")"
place_outputs() { cp "$work/earlier/tuned.csv" "$work/earlier/evidence.h5" "$1/"; }
check_untouched() { # dir what...
  local dir=$1 output
  shift
  for output in "$@"; do
    cmp -s "$work/earlier/$output" "$dir/$output" || fail "$dir/$output changed"
  done
}

# run_bounded <log> <srun args...>: srun within limit_s; prints "exit seconds".
run_bounded() {
  local log=$1 start status=0
  shift
  start=$SECONDS
  timeout --signal=KILL $((limit_s + 30)) srun "$@" >"$log" 2>&1 || status=$?
  echo "$status $((SECONDS - start))"
}

log "1. ranks 1-3 cannot start their worker program"
dir=$work/member
mkdir -p "$dir"
place_outputs "$dir"
printf '#!/nonexistent/fhmoe-interpreter\n' >"$dir/broken-worker"
chmod 0755 "$dir/broken-worker"
cat >"$dir/multi.conf" <<CONF
0 $tuner $(args "$dir" "$dir/journal")
1-3 $tuner $(args "$dir" "$dir/journal") --worker $dir/broken-worker
CONF
read -r status seconds < <(run_bounded "$dir/srun.out" -n 4 --chdir="$dir" --multi-prog "$dir/multi.conf")
tail -n 20 "$dir/srun.out"
[ "$status" -eq 2 ] || fail "srun exited $status, expected 2"
[ "$seconds" -le "$limit_s" ] || fail "the run took $seconds s to end"
grep -q "cannot start the worker" "$dir/srun.out" || fail "no rank said why it failed"
check_untouched "$dir" tuned.csv

log "2. rank 0's journal on a full disk"
dir=$work/full
mkdir -p "$dir/small-disk"
place_outputs "$dir"
if ! mount -t tmpfs -o size=24k tmpfs "$dir/small-disk" 2>"$dir/mount.err"; then
  log "SKIP case 2: cannot mount a tmpfs (a real full disk): $(cat "$dir/mount.err")"
  log "PASS"
  exit 0
fi
trap 'umount -l "$dir/small-disk" 2>/dev/null || true; cancel_submitted_jobs' EXIT
# shellcheck disable=SC2046
read -r status seconds < <(run_bounded "$dir/srun.out" -n 4 --chdir="$dir" "$tuner" \
  $(args "$dir" "$dir/small-disk/journal"))
tail -n 20 "$dir/srun.out"
[ "$status" -eq 2 ] || fail "srun exited $status, expected 2"
[ "$seconds" -le "$limit_s" ] || fail "the run took $seconds s to end"
grep -q "No space left on device" "$dir/srun.out" || fail "no ENOSPC in the log"
grep -q "stopping the other 3 ranks" "$dir/srun.out" || fail "rank 0 did not stop the others"
check_untouched "$dir" tuned.csv evidence.h5
log "PASS"
