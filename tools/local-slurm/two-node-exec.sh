#!/usr/bin/env bash
# Runs a command on a node of the two-node test cluster (two-node-start.sh): inside that node's
# network and UTS namespaces, with SLURM_CONF pointing at the cluster. Clients such as srun,
# sbatch and squeue must run this way: the host's own namespace has no route to the nodes.
#   tools/local-slurm/two-node-exec.sh fhmoe-n1 srun -N 2 -n 4 hostname
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=two-node-common.sh
source "$here/two-node-common.sh"
[ $# -ge 2 ] || { echo "usage: $0 <${two_node_names[*]}> <command...>" >&2; exit 2; }
node=$1
shift
node_namespaces_exist "$node" || { echo "$0: node $node is not up (tools/local-slurm/two-node-start.sh)" >&2; exit 2; }
export FHMOE_SLURM2_STATE_DIR
exec nsenter --net="$(two_node_netns_file "$node")" --uts="$(two_node_uts_file "$node")" -- "$@"
