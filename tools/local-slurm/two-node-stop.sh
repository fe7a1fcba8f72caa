#!/usr/bin/env bash
# Stops the two-node test cluster started by two-node-start.sh: cancels its jobs, stops each
# slurmd, slurmctld and munged by the pid in ITS OWN pidfile under FHMOE_SLURM2_STATE_DIR, ends
# whatever still runs inside the two nodes' network namespaces (job steps orphaned by a killed
# slurmd), then removes the veth pair and both namespaces. Never kills by name: the single-node
# cluster and a site Slurm live outside these namespaces and are not touched. Safe to run when
# nothing is running.
#   FHMOE_SLURM2_KEEP_NODES=1  stop the daemons only, keep the namespaces (start.sh's restart)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=two-node-common.sh
source "$here/two-node-common.sh"
status=0

# shellcheck disable=SC2317  # called through wait_until
no_jobs_left() { [ -z "$(on_node "$two_node_head" squeue -h -o %A 2>/dev/null)" ]; }
# shellcheck disable=SC2317
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# stop_by_pidfile <name> <pidfile>: SIGTERM, wait up to 15 s, then SIGKILL that same pid.
stop_by_pidfile() {
  local name=$1 pidfile=$2 pid
  if ! pidfile_alive "$pidfile"; then
    echo "$name: not running"
    rm -f "$pidfile"
    return 0
  fi
  pid=$(<"$pidfile")
  kill -TERM "$pid" 2>/dev/null
  if wait_until 15 pid_gone "$pid"; then
    echo "$name: stopped (pid $pid)"
  else
    echo "$name: pid $pid ignored SIGTERM for 15 s; sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null
    wait_until 5 pid_gone "$pid" || { echo "$name: pid $pid survives SIGKILL" >&2; status=1; }
  fi
  rm -f "$pidfile"
}

head_up() { node_namespaces_exist "$two_node_head" && pidfile_alive "$two_node_slurmctld_pidfile"; }
if head_up && on_node "$two_node_head" scontrol ping 2>/dev/null | grep 'is UP' >/dev/null; then
  mapfile -t jobs < <(on_node "$two_node_head" squeue -h -o %A 2>/dev/null)
  if [ ${#jobs[@]} -gt 0 ]; then
    echo "cancelling ${#jobs[@]} job(s) of the two-node cluster: ${jobs[*]}"
    on_node "$two_node_head" scancel "${jobs[@]}" 2>/dev/null
    # A job with a step on a lost node stays COMPLETING until that node is DOWN: bounded.
    wait_until 30 no_jobs_left || { echo "jobs still listed after 30 s:" >&2; on_node "$two_node_head" squeue >&2; }
  fi
fi

for node in "${two_node_names[@]}"; do
  stop_by_pidfile "slurmd on $node" "$(two_node_slurmd_pidfile "$node")"
done
stop_by_pidfile slurmctld "$two_node_slurmctld_pidfile"
stop_by_pidfile munged "$two_node_munged_pidfile"
[ "${FHMOE_SLURM2_KEEP_NODES:-0}" = 1 ] && exit $status

# What is left inside the nodes' network namespaces was started there by this cluster (job
# steps, ranks, workers whose slurmd was killed): end it, except this script and its callers.
ours=" $$ "
pid=$$
while [ "$pid" -gt 1 ]; do
  pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null || echo 1)
  ours+="$pid "
done
for node in "${two_node_names[@]}"; do
  [ -e "$(two_node_netns_file "$node")" ] || continue
  leftovers=()
  for pid in $(ip netns pids "$node" 2>/dev/null); do
    [[ $ours == *" $pid "* ]] || leftovers+=("$pid")
  done
  if [ ${#leftovers[@]} -gt 0 ]; then
    echo "$node: ending ${#leftovers[@]} leftover process(es): ${leftovers[*]}"
    kill -KILL "${leftovers[@]}" 2>/dev/null
    for pid in "${leftovers[@]}"; do
      wait_until 5 pid_gone "$pid" || { echo "$node: pid $pid survives SIGKILL" >&2; status=1; }
    done
  fi
done

# The veth pair goes with either namespace; then the namespaces themselves.
for node in "${two_node_names[@]}"; do
  if [ -e "$(two_node_netns_file "$node")" ]; then
    ip netns del "$node" && echo "$node: network namespace removed" || status=1
  fi
  uts=$(two_node_uts_file "$node")
  if [ -e "$uts" ]; then
    umount "$uts" 2>/dev/null || true
    rm -f "$uts" && echo "$node: UTS namespace removed" || status=1
  fi
done
exit $status
