#!/usr/bin/env bash
# Stops the local test cluster started by start.sh: cancels its jobs, waits for them to end
# (so no slurmstepd outlives slurmd), then stops slurmd, slurmctld and munged, each by the
# pid in ITS OWN pidfile under FHMOE_SLURM_STATE_DIR. Never kills by name: a site Slurm or
# another cluster on this host is not touched. Safe to run when nothing is running.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$here/common.sh"
status=0

# shellcheck disable=SC2317  # called through wait_until
no_jobs_left() { [ -z "$(squeue -h -o %A 2>/dev/null)" ]; }

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
  if wait_until 15 bash -c "! kill -0 $pid"; then
    echo "$name: stopped (pid $pid)"
  else
    echo "$name: pid $pid ignored SIGTERM for 15 s; sending SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null
    wait_until 5 bash -c "! kill -0 $pid" || { echo "$name: pid $pid survives SIGKILL" >&2; status=1; }
  fi
  rm -f "$pidfile"
}

if pidfile_alive "$local_slurm_slurmctld_pidfile" && scontrol ping 2>/dev/null | grep 'is UP' >/dev/null; then
  mapfile -t jobs < <(squeue -h -o %A 2>/dev/null)
  if [ ${#jobs[@]} -gt 0 ]; then
    echo "cancelling ${#jobs[@]} job(s) of the local cluster: ${jobs[*]}"
    scancel "${jobs[@]}" 2>/dev/null
    wait_until 30 no_jobs_left || { echo "jobs still listed after 30 s:" >&2; squeue >&2; status=1; }
  fi
fi

stop_by_pidfile slurmd "$local_slurm_slurmd_pidfile"
stop_by_pidfile slurmctld "$local_slurm_slurmctld_pidfile"
stop_by_pidfile munged "$local_slurm_munged_pidfile"
exit $status
