# Polling helpers shared by the local clusters' scripts (common.sh, two-node-common.sh) and the
# slurm tests (tests/slurm/lib.sh); sourced, not run.
# shellcheck shell=bash

# pidfile_alive <pidfile>: the pid in it names a live process.
pidfile_alive() {
  local pid
  [ -s "$1" ] || return 1
  pid=$(<"$1")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# wait_until <seconds> <command...>: poll an external daemon's state with a deadline (the
# daemons give no event to wait on); true as soon as the command succeeds.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  while ((SECONDS < deadline)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  "$@" >/dev/null 2>&1
}
