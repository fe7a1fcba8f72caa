# Shared by the two-node scripts of the local test cluster (sourced, not run): two "hosts" made
# of Linux network + UTS namespaces on this machine, joined by a veth pair. Everything that says
# which namespaces, daemons and files are "ours" is decided here, so start, stop and exec can
# never disagree. The single-node cluster (common.sh, /run/fhmoe-slurm) is a separate thing:
# other state directory, other munged, and its daemons live in the host's namespaces.
# shellcheck shell=bash
# shellcheck disable=SC2034  # the variables below are used by the scripts that source this

# shellcheck source=tools/local-slurm/poll.sh
source "$(dirname "${BASH_SOURCE[0]}")/poll.sh"

FHMOE_SLURM2_STATE_DIR=${FHMOE_SLURM2_STATE_DIR:-/run/fhmoe-slurm-2node}
# Inside the namespaces nothing else listens, so Slurm's ports could be anything; these match the
# single-node cluster's so one firewall rule, if any, fits both.
FHMOE_SLURM2_CTLD_PORT=${FHMOE_SLURM2_CTLD_PORT:-6827}
FHMOE_SLURM2_SLURMD_PORT=${FHMOE_SLURM2_SLURMD_PORT:-6828}
# Per node: 4 advertised CPUs (so one node can take a 4-task step alone) and 4 fake GPUs.
FHMOE_SLURM2_CPUS=${FHMOE_SLURM2_CPUS:-4}
FHMOE_SLURM2_FAKE_GPUS=${FHMOE_SLURM2_FAKE_GPUS:-4}
# A private /24 for the veth pair; nothing outside the two namespaces can route to it.
FHMOE_SLURM2_SUBNET=${FHMOE_SLURM2_SUBNET:-10.231.0}

# The nodes: name (= hostname in its UTS namespace = network namespace name), address, veth end.
two_node_names=(fhmoe-n1 fhmoe-n2)
two_node_addresses=("$FHMOE_SLURM2_SUBNET.1" "$FHMOE_SLURM2_SUBNET.2")
two_node_veths=(fhmoe-v1 fhmoe-v2)
# slurmctld and munged run on the first node, the "head node"; clients (srun, sbatch, squeue,
# scontrol) must run in one of the namespaces too: the host's own namespace has no route in.
two_node_head=${two_node_names[0]}

two_node_etc=$FHMOE_SLURM2_STATE_DIR/etc
two_node_run=$FHMOE_SLURM2_STATE_DIR/run
two_node_log=$FHMOE_SLURM2_STATE_DIR/log
two_node_munge=$FHMOE_SLURM2_STATE_DIR/munge
two_node_fakegpu=$FHMOE_SLURM2_STATE_DIR/fakegpu
two_node_uts=$FHMOE_SLURM2_STATE_DIR/uts
two_node_tmp=$FHMOE_SLURM2_STATE_DIR/tmp
two_node_conf=$two_node_etc/slurm.conf
two_node_munge_socket=$two_node_munge/munge.socket
two_node_munged_pidfile=$two_node_munge/munged.pid
two_node_slurmctld_pidfile=$two_node_run/slurmctld.pid
# slurmd_pidfile <node>: the conf's SlurmdPidFile with %n expanded.
two_node_slurmd_pidfile() { echo "$two_node_run/slurmd-$1.pid"; }

export SLURM_CONF=$two_node_conf

# The namespaces of a node: `ip netns` keeps the network one at /run/netns/<node>; the UTS one
# is bind-mounted onto a file of ours.
two_node_netns_file() { echo "/run/netns/$1"; }
two_node_uts_file() { echo "$two_node_uts/$1"; }

# on_node <node> <command...>: runs a command inside the node's network and UTS namespaces
# (same filesystem, same processes view, same users as the host).
on_node() {
  local node=$1
  shift
  nsenter --net="$(two_node_netns_file "$node")" --uts="$(two_node_uts_file "$node")" -- "$@"
}

# node_namespaces_exist <node>: both namespace files are bound (not just present as files).
node_namespaces_exist() {
  local node=$1
  [ -e "$(two_node_netns_file "$node")" ] && [ -e "$(two_node_uts_file "$node")" ] &&
    [ "$(on_node "$node" hostname 2>/dev/null)" = "$node" ]
}

show_logs() {
  local log
  for log in "$two_node_munge"/munged.log "$two_node_log"/slurmctld.log "$two_node_log"/slurmd-*.log; do
    [ -e "$log" ] || continue
    echo "----- last 30 lines of $log" >&2
    tail -n 30 "$log" >&2
  done
}
