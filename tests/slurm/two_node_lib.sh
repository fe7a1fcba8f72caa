# Helpers of the two-node slurm tests (sourced after lib.sh). ctest runs these tests inside the
# head node's namespaces (tools/local-slurm/two-node-exec.sh fhmoe-n1 ...), so srun, squeue and
# scontrol reach the two-node cluster; the work directories are in the build tree, on the
# filesystem both nodes share.
# shellcheck shell=bash
# shellcheck disable=SC2034  # node1/node2 are used by the scripts that source this

[ "$(hostname)" = fhmoe-n1 ] || fail "run on the two-node cluster's head node fhmoe-n1 (ctest does: label slurm)"
node1=fhmoe-n1
node2=fhmoe-n2

# srun_two_nodes <srun args...>: 4 ranks, 2 per node (block: ranks 0,1 on fhmoe-n1, 2,3 on
# fhmoe-n2), PMIx as on the single-node cluster.
srun_two_nodes() { srun -N 2 -n 4 --ntasks-per-node=2 --mpi=pmix "$@"; }

# node_state <node>: the node's state as slurmctld sees it (idle, alloc, down*, ...).
node_state() { sinfo -h -N -n "$1" -o %T 2>/dev/null; }

# The DSV4 night (configs/untuned_fhmoe.csv, 12 shapes) on the sim backend: its seeded latency
# model decides by clear margins, so runs with the same seed decide alike however the work was
# spread over ranks and hosts. A seeded sample of the catalogue keeps a 4-rank run to seconds.
dsv4_shapes=$FHMOE_SOURCE_DIR/configs/untuned_fhmoe.csv
[ -s "$dsv4_shapes" ] || fail "$dsv4_shapes is missing"
dsv4_sim_args=${FHMOE_SLURM_TEST_DSV4_ARGS:---candidate-sample 2000 --seed 7}
# dsv4_run_args <dir>: a sim run over the DSV4 shapes writing into <dir>.
dsv4_run_args() {
  echo "-i $dsv4_shapes -o $1/tuned_fhmoe.csv --backend sim --journal $1/tuned_fhmoe.journal" \
    "--evidence $1/tuned_fhmoe.h5 $dsv4_sim_args"
}
