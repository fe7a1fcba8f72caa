#!/usr/bin/env bash
# `srun -N 2 -n 4 --gpus-per-task=1 fhmoe_tune_mpi` over the small shapes, cpu backend, on the
# two-node cluster (two ranks per node; MPI between the nodes goes over TCP on the veth pair):
#   - the run completes (exit 0) and writes a valid tuned CSV;
#   - each node's ranks have local ranks 0 and 1 and their own device, numbered per node;
#   - the archive's /ranks puts ranks 0,1 on fhmoe-n1 and 2,3 on fhmoe-n2;
#   - races honour the quiet-device rule per host: nothing else ran on a race's host during the
#     race, while the other host's ranks went on measuring (a rule that treated both hosts as
#     one device, or ignored hosts, fails this).
# Usage: two_node_tuner_cpu_test.sh <fhmoe_tune_mpi binary>
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source-path=SCRIPTDIR source=two_node_lib.sh
source "$(dirname "$0")/two_node_lib.sh"
tuner=${1:?usage: $0 <fhmoe_tune_mpi binary>}
require_tuner "$tuner"
require_small_shapes
work=$(fresh_work_dir "$test_name")

read -r -a extra_args <<<"$quick_tuner_args"
tuner_exit=0
start=$SECONDS
srun_two_nodes --gpus-per-task=1 --label --chdir="$work" "$tuner" -i "$small_shapes" \
  -o "$work/tuned_fhmoe.csv" --backend cpu --journal "$work/tuned_fhmoe.journal" \
  --evidence "$work/tuned_fhmoe.h5" "${extra_args[@]}" >"$work/srun.out" 2>&1 || tuner_exit=$?
tail -n 40 "$work/srun.out"
log "srun -N 2 -n 4 ran $((SECONDS - start)) s"
[ "$tuner_exit" -eq 0 ] || fail "srun fhmoe_tune_mpi exited with status $tuner_exit (0 = every shape decided)"
python_checks node-devices "$work/srun.out" 4 2 || fail "the ranks' device bindings are not per node"
python_checks csv "$work/tuned_fhmoe.csv" || fail "tuned CSV invalid"
python_checks ranks "$work/tuned_fhmoe.h5" "$node1=0,1" "$node2=2,3" || fail "/ranks does not show both hosts"
python_checks races-per-host "$work/tuned_fhmoe.h5" || fail "races broke the quiet-device rule per host"
log "PASS"
