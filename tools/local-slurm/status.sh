#!/usr/bin/env bash
# Shows the local test cluster: each daemon (by its pidfile), the node, the queue, and the
# SLURM_CONF line clients need. Exit 0 when all three daemons are alive and the controller
# answers, 1 otherwise (scripts may use it as a check).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$here/common.sh"
status=0
for daemon in munged slurmctld slurmd; do
  pidfile_var=local_slurm_${daemon}_pidfile
  pidfile=${!pidfile_var}
  if pidfile_alive "$pidfile"; then
    printf '%-10s running (pid %s)\n' "$daemon" "$(<"$pidfile")"
  else
    printf '%-10s NOT running (pidfile %s)\n' "$daemon" "$pidfile"
    status=1
  fi
done
if [ $status -eq 0 ]; then
  scontrol ping || status=1
  sinfo -N -o '%N %T %c %G' || status=1
  squeue -o '%.8i %.20j %.9T %.10M %R' || status=1
fi
echo "state: $FHMOE_SLURM_STATE_DIR  logs: $local_slurm_log"
echo "export SLURM_CONF=$local_slurm_conf"
exit $status
