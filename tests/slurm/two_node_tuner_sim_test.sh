#!/usr/bin/env bash
# The DSV4 shapes on the sim backend, `srun -N 2 -n 4` on the two-node cluster against a
# one-host run (`srun -N 1 -n 4 -w fhmoe-n1`) with the same seed: both complete, the two-node
# archive's /ranks shows both hosts (the one-host one only fhmoe-n1), and the two runs publish
# the same shapes with the same block_m, ksplit and kernels.
# Usage: two_node_tuner_sim_test.sh <fhmoe_tune_mpi binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=two_node_lib.sh
source "$(dirname "$0")/two_node_lib.sh"
tuner=${1:?usage: $0 <fhmoe_tune_mpi binary>}
require_tuner "$tuner"
work=$(fresh_work_dir "$test_name")
mkdir -p "$work/one-host" "$work/two-nodes"

status=0
start=$SECONDS
# shellcheck disable=SC2046  # the run's flags, split on purpose
srun -N 1 -n 4 -w "$node1" --mpi=pmix --chdir="$work/one-host" "$tuner" $(dsv4_run_args "$work/one-host") \
  >"$work/one-host/srun.out" 2>&1 || status=$?
tail -n 15 "$work/one-host/srun.out"
log "one-host run: exit $status, $((SECONDS - start)) s"
[ "$status" -eq 0 ] || fail "the one-host run exited $status"

start=$SECONDS
# shellcheck disable=SC2046
srun_two_nodes --chdir="$work/two-nodes" "$tuner" $(dsv4_run_args "$work/two-nodes") \
  >"$work/two-nodes/srun.out" 2>&1 || status=$?
tail -n 15 "$work/two-nodes/srun.out"
log "two-node run: exit $status, $((SECONDS - start)) s"
[ "$status" -eq 0 ] || fail "the two-node run exited $status"

python_checks ranks "$work/one-host/tuned_fhmoe.h5" "$node1=0,1,2,3" || fail "the one-host archive's /ranks"
python_checks ranks "$work/two-nodes/tuned_fhmoe.h5" "$node1=0,1" "$node2=2,3" ||
  fail "the two-node archive's /ranks does not show both hosts"
python_checks decisions --strict-kernels "$work/one-host/tuned_fhmoe.csv" "$work/two-nodes/tuned_fhmoe.csv" ||
  fail "the two-node run decided differently from the one-host run with the same seed"
log "PASS"
