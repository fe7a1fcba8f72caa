#!/usr/bin/env bash
# Starts the single-node Slurm test cluster: munged, slurmctld and slurmd on this host, with
# 8 advertised CPUs and 4 fake GPUs, MpiDefault=pmix. Run as root (tools/install-deps.sh must
# have run). Idempotent: daemons already alive are left alone, so a second run only checks
# that the node is schedulable.
#
# State, configs, logs and pidfiles live under FHMOE_SLURM_STATE_DIR (default /run/fhmoe-slurm).
# Clients find the cluster through SLURM_CONF: `source tools/local-slurm/env.sh`.
#   FHMOE_SLURM_KEEP_STATE=1  restart slurmctld with its saved jobs (default: a clean start)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$here/common.sh"

fail() {
  echo "local-slurm start: FAILED: $*" >&2
  show_logs
  exit 1
}

[ "$(id -u)" -eq 0 ] || { echo "local-slurm start: must run as root" >&2; exit 1; }
for binary in /usr/sbin/munged /usr/bin/munge /usr/bin/unmunge /usr/sbin/mungekey \
  /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/scontrol /usr/bin/sinfo; do
  [ -x "$binary" ] || { echo "local-slurm start: $binary missing: run tools/install-deps.sh" >&2; exit 1; }
done
getent passwd slurm >/dev/null || { echo "local-slurm start: no 'slurm' user: run tools/install-deps.sh" >&2; exit 1; }
getent passwd munge >/dev/null || { echo "local-slurm start: no 'munge' user: run tools/install-deps.sh" >&2; exit 1; }

# --- directories (what systemd-tmpfiles would make on a normal install) ----------------
install -d -m 0755 "$FHMOE_SLURM_STATE_DIR" "$local_slurm_etc" "$local_slurm_run" "$local_slurm_fakegpu"
install -d -o slurm -g slurm -m 0755 "$local_slurm_log" "$FHMOE_SLURM_STATE_DIR/slurmctld"
install -d -m 0755 "$FHMOE_SLURM_STATE_DIR/slurmd"
# munged refuses a socket or key directory that others can write to.
install -d -o munge -g munge -m 0755 "$local_slurm_munge"

# --- configs from the templates, with this host's name ------------------------------------
render() {  # render <template> <destination>; prints "changed" when the file changed
  local rendered
  rendered=$(sed -e "s|@NODE@|$local_slurm_node|g" \
    -e "s|@CTLD_PORT@|$FHMOE_SLURM_CTLD_PORT|g" -e "s|@SLURMD_PORT@|$FHMOE_SLURM_SLURMD_PORT|g" \
    -e "s|@MUNGE_SOCKET@|$local_slurm_munge_socket|g" -e "s|@STATE_DIR@|$FHMOE_SLURM_STATE_DIR|g" \
    -e "s|@RUN_DIR@|$local_slurm_run|g" -e "s|@LOG_DIR@|$local_slurm_log|g" \
    -e "s|@ETC_DIR@|$local_slurm_etc|g" -e "s|@FAKEGPU_DIR@|$local_slurm_fakegpu|g" \
    -e "s|@CPUS@|$FHMOE_SLURM_CPUS|g" -e "s|@GPUS@|$FHMOE_SLURM_FAKE_GPUS|g" \
    -e "s|@LAST_GPU@|$((FHMOE_SLURM_FAKE_GPUS - 1))|g" "$1")
  if [ ! -e "$2" ] || [ "$rendered" != "$(<"$2")" ]; then
    printf '%s\n' "$rendered" >"$2.tmp"
    chmod 0644 "$2.tmp"
    mv "$2.tmp" "$2"
    echo changed
  fi
}
config_changed=$(render "$here/slurm.conf.in" "$local_slurm_conf")
config_changed+=$(render "$here/gres.conf.in" "$local_slurm_etc/gres.conf")
# An empty plugin stack: without it Slurm would read the host's /etc/slurm/plugstack.conf.
[ -e "$local_slurm_etc/plugstack.conf" ] || : >"$local_slurm_etc/plugstack.conf"
if [ -n "$config_changed" ] && { pidfile_alive "$local_slurm_slurmctld_pidfile" || pidfile_alive "$local_slurm_slurmd_pidfile"; }; then
  # Running daemons hold the old config (ports, node, gres): restart ours so they match.
  echo "local-slurm start: configuration changed; restarting the cluster's daemons"
  "$here/stop.sh"
fi

# Fake GPU device nodes for gres.conf (character devices with /dev/null's numbers).
for ((gpu = 0; gpu < FHMOE_SLURM_FAKE_GPUS; gpu++)); do
  node=$local_slurm_fakegpu/nvidia$gpu
  [ -c "$node" ] || { rm -f "$node"; mknod -m 0666 "$node" c 1 3; }
done

# --- munged: our own key and socket ----------------------------------------------------------
munge_key=$local_slurm_munge/munge.key
if [ ! -s "$munge_key" ]; then
  mungekey --create --keyfile="$munge_key"
  chown munge:munge "$munge_key"
  chmod 0600 "$munge_key"
fi
munge_works() { munge --socket="$local_slurm_munge_socket" -n </dev/null | unmunge --socket="$local_slurm_munge_socket"; }
if pidfile_alive "$local_slurm_munged_pidfile"; then
  echo "munged     already running (pid $(<"$local_slurm_munged_pidfile"))"
else
  runuser -u munge -- /usr/sbin/munged --socket="$local_slurm_munge_socket" \
    --key-file="$munge_key" --pid-file="$local_slurm_munged_pidfile" \
    --log-file="$local_slurm_munge/munged.log" --seed-file="$local_slurm_munge/munged.seed" ||
    fail "munged did not start"
  wait_until 10 munge_works || fail "munge credential round trip does not work"
  echo "munged     started (pid $(<"$local_slurm_munged_pidfile"))"
fi

# --- slurmctld ------------------------------------------------------------------------------
controller_up() { scontrol ping | grep 'is UP' >/dev/null; }
if pidfile_alive "$local_slurm_slurmctld_pidfile"; then
  echo "slurmctld  already running (pid $(<"$local_slurm_slurmctld_pidfile"))"
else
  controller_options=()
  # A test cluster starts empty: jobs of an earlier, aborted session must not run again.
  [ "${FHMOE_SLURM_KEEP_STATE:-0}" = 1 ] || controller_options+=(-c)
  /usr/sbin/slurmctld -f "$local_slurm_conf" "${controller_options[@]}" || fail "slurmctld did not start"
  # The daemonized child writes the pidfile a moment after the parent returns.
  wait_until 10 pidfile_alive "$local_slurm_slurmctld_pidfile" || fail "slurmctld wrote no live pidfile"
  echo "slurmctld  started (pid $(<"$local_slurm_slurmctld_pidfile"))"
fi
wait_until 20 controller_up || fail "slurmctld does not answer 'scontrol ping'"

# --- slurmd ---------------------------------------------------------------------------------
if pidfile_alive "$local_slurm_slurmd_pidfile"; then
  echo "slurmd     already running (pid $(<"$local_slurm_slurmd_pidfile"))"
else
  /usr/sbin/slurmd -f "$local_slurm_conf" || fail "slurmd did not start"
  wait_until 10 pidfile_alive "$local_slurm_slurmd_pidfile" || fail "slurmd wrote no live pidfile"
  echo "slurmd     started (pid $(<"$local_slurm_slurmd_pidfile"))"
fi

node_state() { sinfo -h -N -n "$local_slurm_node" -o %T; }
node_schedulable() { node_state | grep -Eqx 'idle|mixed|allocated|completing'; }
if ! wait_until 30 node_schedulable; then
  # A node left DOWN or DRAINED by an earlier crash of the cluster is ours to bring back.
  scontrol update NodeName="$local_slurm_node" State=RESUME 2>/dev/null || true
  if ! wait_until 15 node_schedulable; then
    scontrol show node "$local_slurm_node" >&2 || true
    fail "node $local_slurm_node is '$(node_state 2>/dev/null || echo unknown)', not schedulable"
  fi
fi
echo "node $local_slurm_node is $(node_state): $(sinfo -h -N -n "$local_slurm_node" -o '%c CPUs, %G')"
echo "local-slurm: cluster ready. Clients: export SLURM_CONF=$local_slurm_conf"
