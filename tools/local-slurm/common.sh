# Shared by start.sh, stop.sh, status.sh and env.sh of the local test cluster (sourced, not run).
# One place decides where the cluster keeps its state, so the scripts can never disagree about
# which daemons are "ours": each daemon's pidfile lives under FHMOE_SLURM_STATE_DIR.
# shellcheck shell=bash
# shellcheck disable=SC2034  # the variables below are used by the scripts that source this

# /run is a tmpfs on real machines: a reboot clears stale pidfiles and job state with it.
FHMOE_SLURM_STATE_DIR=${FHMOE_SLURM_STATE_DIR:-/run/fhmoe-slurm}
# Ports of our own (Slurm's defaults are 6817/6818) so a site Slurm on the same host is untouched.
FHMOE_SLURM_CTLD_PORT=${FHMOE_SLURM_CTLD_PORT:-6827}
FHMOE_SLURM_SLURMD_PORT=${FHMOE_SLURM_SLURMD_PORT:-6828}
# What the node advertises: 8 CPUs whatever the hardware (config_overrides), 4 fake GPUs.
FHMOE_SLURM_CPUS=${FHMOE_SLURM_CPUS:-8}
FHMOE_SLURM_FAKE_GPUS=${FHMOE_SLURM_FAKE_GPUS:-4}

local_slurm_etc=$FHMOE_SLURM_STATE_DIR/etc
local_slurm_run=$FHMOE_SLURM_STATE_DIR/run
local_slurm_log=$FHMOE_SLURM_STATE_DIR/log
local_slurm_munge=$FHMOE_SLURM_STATE_DIR/munge
local_slurm_fakegpu=$FHMOE_SLURM_STATE_DIR/fakegpu
local_slurm_conf=$local_slurm_etc/slurm.conf
local_slurm_munge_socket=$local_slurm_munge/munge.socket
local_slurm_munged_pidfile=$local_slurm_munge/munged.pid
local_slurm_slurmctld_pidfile=$local_slurm_run/slurmctld.pid
local_slurm_slurmd_pidfile=$local_slurm_run/slurmd.pid
# The node is named after the real host (short name), as on a real cluster; slurmd finds its
# NodeName from the hostname, so it needs no -N.
local_slurm_node=$(hostname -s)

# Every Slurm command (daemons and clients) reads our config through SLURM_CONF, and gres.conf
# is looked up beside it.
export SLURM_CONF=$local_slurm_conf

# shellcheck source=tools/local-slurm/poll.sh
source "$(dirname "${BASH_SOURCE[0]}")/poll.sh"

# show_logs: the last lines of every daemon log, for a failure message.
show_logs() {
  local log
  for log in "$local_slurm_munge"/munged.log "$local_slurm_log"/slurmctld.log "$local_slurm_log"/slurmd.log; do
    [ -e "$log" ] || continue
    echo "----- last 30 lines of $log" >&2
    tail -n 30 "$log" >&2
  done
}
