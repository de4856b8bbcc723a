# shellcheck shell=bash disable=SC2154  # $work and $here come from the sourcing test
# Simulated cluster hosts on one machine; sourced after common.sh, with $work
# set to the test's scratch directory.
#
# `hosts_up N [isolated]` makes a login host, dsa-login, and compute hosts
# dsa-h0 .. dsa-h<N-1>. Each host is:
#   - a network namespace whose veth is on a bridge living in a namespace of
#     its own, with an address that exists only inside those namespaces, and
#     an /etc/hosts (from /etc/netns/<ns>/hosts) that names every host;
#   - a UTS namespace with the host's name as hostname;
#   - a mount namespace where $private (a directory of the real machine,
#     empty there) is covered by a directory that only this host sees;
#   - for compute hosts with "isolated": PID and IPC namespaces (and a /proc
#     of their own) too, so that no shared memory or cross-process reads are
#     possible between hosts and MPI has to use TCP over the bridge.
# mpirun runs on the login host, as users run it on a login node: hydra treats
# the host it runs on as local and starts that host's ranks without ssh, and
# its ssh stand-in (fake_ssh) can enter other hosts' PID namespaces only from
# the machine's own.
#
# A holder process (`sleep`) keeps each host's namespaces; `on_host H CMD...`
# runs CMD in them, through fake_ssh like hydra does. Everything made here is
# undone by the EXIT trap of common.sh.
#
# Sets: hosts (compute host names), private, host_dir[name] (what each host
# sees at $private), host_file (hydra's), DSA_FAKE_HOSTS (for fake_ssh).

subnet=10.213.77  # exists only inside the namespaces made here
hosts=()
declare -A host_dir

# host_up NAME INDEX [isolated]: one host at $subnet.(10 + INDEX).
host_up() {
  local h=$1 i=$2 isolated=${3:-} ns="$tag-$1" veth="d$$v$2"  # <= 15 characters
  ip netns add "$ns"
  on_exit "ip netns del '$ns'"
  mkdir -p "/etc/netns/$ns"
  on_exit "rm -rf '/etc/netns/$ns'"
  cp "$work/etc-hosts" "/etc/netns/$ns/hosts"
  # A veth pair: eth0 inside the host, its peer on the bridge.
  ip link add "$veth" type veth peer name "${veth}b"
  ip link set "$veth" netns "$ns"
  ip link set "${veth}b" netns "$bridge_ns"
  ip -n "$bridge_ns" link set "${veth}b" master br0 up
  ip -n "$ns" link set "$veth" name eth0
  ip -n "$ns" addr add "$subnet.$((10 + i))/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up

  host_dir[$h]="$work/disk-$h"
  mkdir -p "${host_dir[$h]}"
  local extra=()
  [[ $isolated == isolated ]] && extra=(--pid --fork --kill-child --mount-proc --ipc)
  # `ip netns exec` makes a mount namespace with /etc/hosts bound from
  # /etc/netns/<ns>/hosts; unshare copies it into the host's own.
  ip netns exec "$ns" unshare --uts --mount --propagation private "${extra[@]}" \
    bash -c 'hostname "$1" && mount --bind "$2" "$3" && exec sleep infinity' \
    _ "$h" "${host_dir[$h]}" "$private" > "$work/host-$h.log" 2>&1 &
  local launcher=$! holder=$! j
  on_exit "stop_pid $launcher"
  # The holder is the sleep: with --fork the launcher's child, else the launcher.
  for ((j = 0; j < 50; j++)); do
    [[ -n $isolated ]] && holder=$(cat /proc/"$launcher"/task/*/children 2>/dev/null)
    [[ -n $holder && $(readlink "/proc/${holder%% *}/exe" 2>/dev/null) == */sleep ]] && break
    sleep 0.1
  done
  holder=${holder%% *}
  [[ $(readlink "/proc/$holder/exe" 2>/dev/null) == */sleep ]] || fail "host $h did not start: $(cat "$work/host-$h.log")"
  # SIGKILL: the first process of a PID namespace ignores SIGTERM, and its
  # death ends every process left in that namespace.
  on_exit "kill -KILL $holder 2>/dev/null"
  echo "$holder" > "$DSA_FAKE_HOSTS/$h"
}

hosts_up() {
  local n=$1 isolated=${2:-} i
  tag="dsa$$"
  bridge_ns="$tag-br"
  private="$work/private"
  export DSA_FAKE_HOSTS="$work/hosts"
  mkdir -p "$private" "$DSA_FAKE_HOSTS"
  # Whatever runs on the hosts inherits this marker; it finds leftovers.
  on_exit "kill_marked 'DSA_FAKE_HOSTS=$DSA_FAKE_HOSTS'"

  ip netns add "$bridge_ns" || skip "cannot create network namespaces (ip netns add)"
  on_exit "ip netns del '$bridge_ns'"
  ip -n "$bridge_ns" link add br0 type bridge
  ip -n "$bridge_ns" link set br0 up

  {
    printf '127.0.0.1 localhost\n%s.9 dsa-login\n' "$subnet"
    for ((i = 0; i < n; i++)); do printf '%s.%d dsa-h%d\n' "$subnet" $((10 + i)) "$i"; done
  } > "$work/etc-hosts"
  host_up dsa-login -1
  for ((i = 0; i < n; i++)); do
    hosts+=("dsa-h$i")
    host_up "dsa-h$i" "$i" "$isolated"
  done
  host_file="$work/hydra-hosts"
  printf '%s:1\n' "${hosts[@]}" > "$host_file"
}

# on_host HOST CMD...: runs CMD on HOST (its namespaces, cwd $work).
on_host() {
  local h=$1
  shift
  "$here/fake_ssh" "$h" "cd '$work' && $(printf '%q ' "$@")"
}

# mpirun_on_login ARGS...: `mpirun ARGS...` on the login host, with hydra
# reaching the compute hosts through fake_ssh, bounded like every launch.
mpirun_on_login() {
  on_host dsa-login env HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC="$here/fake_ssh" \
    HYDRA_HOST_FILE="$host_file" timeout -k 5 "$LAUNCH_TIMEOUT" mpirun "$@"
}

# The bytes that crossed compute host i's link to the bridge, both ways.
link_bytes() {
  local stats="/sys/class/net/d$$v$1b/statistics"
  ip netns exec "$bridge_ns" cat "$stats/rx_bytes" "$stats/tx_bytes" | awk '{s += $1} END {print s}'
}
