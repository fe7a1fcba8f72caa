# Helpers of the slurm tests (sourced). Every test runs against the local cluster that the
# fixture test slurm_cluster_start brought up; ctest passes SLURM_CONF in the environment.
# shellcheck shell=bash

# shellcheck source=tools/local-slurm/poll.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/local-slurm/poll.sh"

test_name=$(basename "$0" .sh)
log() { printf '[%s %s] %s\n' "$test_name" "$(date +%T)" "$*"; }
fail() {
  log "FAIL: $*" >&2
  exit 1
}

[ -n "${SLURM_CONF:-}" ] || fail "SLURM_CONF is not set: run this through ctest (label slurm)"
scontrol ping 2>/dev/null | grep 'is UP' >/dev/null ||
  fail "the local cluster is not up (ctest's slurm_cluster_start fixture, or tools/local-slurm/start.sh)"

# fresh_work_dir <name>: an empty directory for one test's files, in the build tree.
fresh_work_dir() {
  local dir=$FHMOE_SLURM_TEST_WORK/$1
  rm -rf -- "$dir"
  mkdir -p -- "$dir"
  echo "$dir"
}

# Jobs a test submits are cancelled when it exits, whatever the outcome, so a failing test
# leaves nothing queued for the next one.
submitted_jobs=()
cancel_submitted_jobs() {
  [ ${#submitted_jobs[@]} -eq 0 ] || scancel "${submitted_jobs[@]}" 2>/dev/null || true
}
trap cancel_submitted_jobs EXIT

# job_field <job id> <field>: one field of `scontrol show job` (e.g. JobState, Restarts).
job_field() {
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# require_tuner <binary>: the tuner must be built and answer --help; a tuner that cannot is a
# failure, never a skip, so a broken build cannot pass the slurm label quietly.
require_tuner() {
  local help_exit=0
  [ -x "$1" ] || fail "tuner binary $1 missing: build target fhmoe_tune_mpi"
  timeout 60 "$1" --help >/dev/null 2>&1 || help_exit=$?
  [ "$help_exit" -eq 0 ] || fail "'$1 --help' exited $help_exit"
}

# require_small_shapes: the CI shape list (configs/untuned_fhmoe_small.csv).
require_small_shapes() {
  small_shapes=$FHMOE_SOURCE_DIR/configs/untuned_fhmoe_small.csv
  [ -s "$small_shapes" ] || fail "$small_shapes is missing"
}

# The tuner's settings for the CI runs (the CPU backend is chosen separately): few timed iterations, a seeded sample of
# the catalogue, so a 4-rank run on a 2-core machine finishes in a minute or two. Decisions
# depend on the seed, never on which rank measured what.
quick_tuner_args="--warmup 2 --iters 15 --candidate-sample 8 --seed 7 -v"
quick_tuner_args=${FHMOE_SLURM_TEST_TUNER_ARGS:-$quick_tuner_args}

python_checks() { /usr/bin/python3 "$FHMOE_SOURCE_DIR/tests/slurm/check_outputs.py" "$@"; }
