#!/usr/bin/env bash
# Starts the two-node Slurm test cluster: two "hosts" on this machine, each a network + UTS
# namespace (hostnames fhmoe-n1 and fhmoe-n2, addresses 10.231.0.1 and .2 on a veth pair),
# munged and slurmctld on fhmoe-n1, a slurmd on each, one partition "two" of both nodes.
# The namespaces share the host's filesystem, which plays the cluster's shared filesystem.
# Run as root. Idempotent: namespaces and daemons already there are left alone, so a second run
# only checks that both nodes are schedulable. Independent of the single-node cluster
# (start.sh): other state directory, other munged, daemons in other namespaces.
#
# Clients run on a node: tools/local-slurm/two-node-exec.sh fhmoe-n1 srun -N 2 -n 4 hostname
#   FHMOE_SLURM2_STATE_DIR   state, configs, logs, pidfiles (default /run/fhmoe-slurm-2node)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=two-node-common.sh
source "$here/two-node-common.sh"

fail() {
  echo "local-slurm two-node start: FAILED: $*" >&2
  show_logs
  exit 1
}

[ "$(id -u)" -eq 0 ] || { echo "local-slurm two-node start: must run as root" >&2; exit 1; }
for binary in /usr/sbin/munged /usr/bin/munge /usr/bin/unmunge /usr/sbin/mungekey /usr/sbin/slurmctld \
  /usr/sbin/slurmd /usr/bin/scontrol /usr/bin/sinfo /usr/bin/nsenter /usr/bin/unshare /usr/sbin/ip /usr/bin/hostname; do
  [ -x "$binary" ] || fail "$binary missing: run tools/install-deps.sh"
done
getent passwd slurm >/dev/null || fail "no 'slurm' user: run tools/install-deps.sh"
getent passwd munge >/dev/null || fail "no 'munge' user: run tools/install-deps.sh"

install -d -m 0755 "$FHMOE_SLURM2_STATE_DIR" "$two_node_etc" "$two_node_run" "$two_node_uts"
install -d -o slurm -g slurm -m 0755 "$two_node_log" "$FHMOE_SLURM2_STATE_DIR/slurmctld"
install -d -o munge -g munge -m 0755 "$two_node_munge"
for node in "${two_node_names[@]}"; do
  install -d -m 0755 "$FHMOE_SLURM2_STATE_DIR/slurmd/$node" "$two_node_fakegpu/$node"
done

# --- the two hosts -------------------------------------------------------------------------
# A node is up when its network namespace has its address and its UTS namespace its hostname.
# Half-made nodes (a start that died midway) are completed, not duplicated.
for i in 0 1; do
  node=${two_node_names[$i]}
  # A name under /run/netns that is no namespace any more (a plain file left by a reboot where
  # /run is not a tmpfs) is removed and made again.
  if [ -e "$(two_node_netns_file "$node")" ] && ! ip -n "$node" link show lo >/dev/null 2>&1; then
    ip netns del "$node" 2>/dev/null || rm -f "$(two_node_netns_file "$node")"
  fi
  [ -e "$(two_node_netns_file "$node")" ] || ip netns add "$node" || fail "ip netns add $node"
  uts=$(two_node_uts_file "$node")
  if ! { [ -e "$uts" ] && [ "$(nsenter --uts="$uts" hostname 2>/dev/null)" = "$node" ]; }; then
    rm -f "$uts"
    : >"$uts"
    # unshare binds the new UTS namespace onto $uts and sets its hostname there; the host's
    # own hostname is untouched.
    unshare --uts="$uts" hostname "$node" || fail "cannot make the UTS namespace of $node"
  fi
done
netns1=${two_node_names[0]} netns2=${two_node_names[1]}
veth1=${two_node_veths[0]} veth2=${two_node_veths[1]}
if ! ip -n "$netns1" link show "$veth1" >/dev/null 2>&1; then
  # A veth end left in one namespace by a half-done start would block the pair's creation.
  ip -n "$netns2" link del "$veth2" 2>/dev/null || true
  ip link add "$veth1" netns "$netns1" type veth peer name "$veth2" netns "$netns2" ||
    fail "cannot create the veth pair $veth1/$veth2"
fi
for i in 0 1; do
  node=${two_node_names[$i]} veth=${two_node_veths[$i]} address=${two_node_addresses[$i]}
  ip -n "$node" link set lo up
  # (grep without -q in pipes: under pipefail, -q's early exit can fail the writer with SIGPIPE)
  ip -n "$node" addr show dev "$veth" | grep "inet $address/" >/dev/null ||
    ip -n "$node" addr add "$address/24" dev "$veth" || fail "cannot give $node the address $address"
  ip -n "$node" link set "$veth" up
done
# No ping on a minimal Debian: the link is up at both ends once each reports LOWER_UP (the
# daemons' own connections below are the real test).
link_up() { ip -n "$1" link show "$2" | grep LOWER_UP >/dev/null; }
wait_until 10 link_up "$netns1" "$veth1" || fail "the link of $netns1 ($veth1) is not up"
wait_until 10 link_up "$netns2" "$veth2" || fail "the link of $netns2 ($veth2) is not up"
echo "nodes      ${two_node_names[0]} (${two_node_addresses[0]}) and ${two_node_names[1]} (${two_node_addresses[1]}) up"

# --- configs -----------------------------------------------------------------------------------
render() {  # render <template> <destination>; prints "changed" when the file changed
  local rendered
  rendered=$(sed -e "s|@NODE1@|${two_node_names[0]}|g" -e "s|@NODE2@|${two_node_names[1]}|g" \
    -e "s|@ADDR1@|${two_node_addresses[0]}|g" -e "s|@ADDR2@|${two_node_addresses[1]}|g" \
    -e "s|@CTLD_PORT@|$FHMOE_SLURM2_CTLD_PORT|g" -e "s|@SLURMD_PORT@|$FHMOE_SLURM2_SLURMD_PORT|g" \
    -e "s|@MUNGE_SOCKET@|$two_node_munge_socket|g" -e "s|@STATE_DIR@|$FHMOE_SLURM2_STATE_DIR|g" \
    -e "s|@RUN_DIR@|$two_node_run|g" -e "s|@LOG_DIR@|$two_node_log|g" \
    -e "s|@ETC_DIR@|$two_node_etc|g" -e "s|@FAKEGPU_DIR@|$two_node_fakegpu|g" \
    -e "s|@CPUS@|$FHMOE_SLURM2_CPUS|g" -e "s|@GPUS@|$FHMOE_SLURM2_FAKE_GPUS|g" \
    -e "s|@SLURMD_TIMEOUT@|${FHMOE_SLURM2_SLURMD_TIMEOUT:-10}|g" \
    -e "s|@LAST_GPU@|$((FHMOE_SLURM2_FAKE_GPUS - 1))|g" "$1")
  if [ ! -e "$2" ] || [ "$rendered" != "$(<"$2")" ]; then
    printf '%s\n' "$rendered" >"$2.tmp"
    chmod 0644 "$2.tmp"
    mv "$2.tmp" "$2"
    echo changed
  fi
}
any_daemon_alive() {
  local node
  pidfile_alive "$two_node_slurmctld_pidfile" && return 0
  for node in "${two_node_names[@]}"; do
    pidfile_alive "$(two_node_slurmd_pidfile "$node")" && return 0
  done
  return 1
}
config_changed=$(render "$here/slurm-two-node.conf.in" "$two_node_conf")
config_changed+=$(render "$here/gres-two-node.conf.in" "$two_node_etc/gres.conf")
[ -e "$two_node_etc/plugstack.conf" ] || : >"$two_node_etc/plugstack.conf"
if [ -n "$config_changed" ] && any_daemon_alive; then
  echo "local-slurm two-node start: configuration changed; restarting the cluster's daemons"
  FHMOE_SLURM2_KEEP_NODES=1 "$here/two-node-stop.sh"
fi
for node in "${two_node_names[@]}"; do
  for ((gpu = 0; gpu < FHMOE_SLURM2_FAKE_GPUS; gpu++)); do
    device=$two_node_fakegpu/$node/nvidia$gpu
    [ -c "$device" ] || { rm -f "$device"; mknod -m 0666 "$device" c 1 3; }
  done
done

# --- munged (on the head node; its socket is a path every node sees) --------------------------
munge_key=$two_node_munge/munge.key
if [ ! -s "$munge_key" ]; then
  mungekey --create --keyfile="$munge_key"
  chown munge:munge "$munge_key"
  chmod 0600 "$munge_key"
fi
munge_works() { munge --socket="$two_node_munge_socket" -n </dev/null | unmunge --socket="$two_node_munge_socket"; }
if pidfile_alive "$two_node_munged_pidfile"; then
  echo "munged     already running (pid $(<"$two_node_munged_pidfile"))"
else
  on_node "$two_node_head" runuser -u munge -- /usr/sbin/munged --socket="$two_node_munge_socket" \
    --key-file="$munge_key" --origin="${two_node_addresses[0]}" --pid-file="$two_node_munged_pidfile" \
    --log-file="$two_node_munge/munged.log" --seed-file="$two_node_munge/munged.seed" ||
    fail "munged did not start"
  wait_until 10 munge_works || fail "munge credential round trip does not work"
  echo "munged     started on $two_node_head (pid $(<"$two_node_munged_pidfile"))"
fi

# --- slurmctld (on the head node, listening on its address) ------------------------------------
controller_up() { on_node "$two_node_head" scontrol ping | grep 'is UP' >/dev/null; }
if pidfile_alive "$two_node_slurmctld_pidfile"; then
  echo "slurmctld  already running (pid $(<"$two_node_slurmctld_pidfile"))"
else
  on_node "$two_node_head" /usr/sbin/slurmctld -f "$two_node_conf" -c || fail "slurmctld did not start"
  wait_until 10 pidfile_alive "$two_node_slurmctld_pidfile" || fail "slurmctld wrote no live pidfile"
  echo "slurmctld  started on $two_node_head (pid $(<"$two_node_slurmctld_pidfile"))"
fi
wait_until 20 controller_up || fail "slurmctld does not answer 'scontrol ping' on $two_node_head"

# --- a slurmd per node ----------------------------------------------------------------------------
for node in "${two_node_names[@]}"; do
  pidfile=$(two_node_slurmd_pidfile "$node")
  if pidfile_alive "$pidfile"; then
    echo "slurmd     already running on $node (pid $(<"$pidfile"))"
  else
    # Each node's own temporary directory (TmpFS=<state>/tmp/%n in the config).
    install -d -m 1777 "$two_node_tmp/$node"
    on_node "$node" /usr/sbin/slurmd -f "$two_node_conf" -N "$node" ||
      fail "slurmd did not start on $node"
    wait_until 10 pidfile_alive "$pidfile" || fail "slurmd of $node wrote no live pidfile"
    echo "slurmd     started on $node (pid $(<"$pidfile"))"
  fi
done

node_state() { on_node "$two_node_head" sinfo -h -N -n "$1" -o %T; }
node_schedulable() { node_state "$1" | grep -Ex 'idle|mixed|allocated|completing' >/dev/null; }
for node in "${two_node_names[@]}"; do
  if ! wait_until 30 node_schedulable "$node"; then
    # A node left DOWN by an earlier node-loss test or crash is ours to bring back.
    on_node "$two_node_head" scontrol update NodeName="$node" State=RESUME 2>/dev/null || true
    if ! wait_until 15 node_schedulable "$node"; then
      on_node "$two_node_head" scontrol show node "$node" >&2 || true
      fail "node $node is '$(node_state "$node" 2>/dev/null || echo unknown)', not schedulable"
    fi
  fi
  echo "node $node is $(node_state "$node"): $(on_node "$two_node_head" sinfo -h -N -n "$node" -o '%c CPUs, %G')"
done
echo "local-slurm two-node: cluster ready. Clients: $here/two-node-exec.sh $two_node_head <command>"
