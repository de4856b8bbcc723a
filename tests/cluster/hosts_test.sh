#!/usr/bin/env bash
# dsanalyze across simulated hosts (fake_hosts.sh), launched the way users
# launch it: `mpirun -n N dsanalyze --config …` on a login host, with MPICH's
# hydra reaching the hosts through its ssh launcher (a stand-in, fake_ssh).
#
#   hosts_test.sh three  three hosts; the save path is a directory that only
#                        host 0 has. Ranks land one per host, ranks 1-2 cannot
#                        see the save path, the run succeeds, and its output
#                        equals a one-host run's.
#   hosts_test.sh tcp    two hosts that also have their own PID and IPC
#                        namespaces, so MPI cannot use shared memory between
#                        them: the data crosses the bridge over TCP (counted on
#                        the link), and the output equals a one-host run's.
# Three TCP-only hosts are not run: two take the same path, where dsanalyze
# skips MPI_Finalize because MPICH 4.0.2 can hang in it (docs/cluster.md).
# Needs root and network namespaces.
set -euo pipefail
: "${DSANALYZE:?}" "${MPIEXEC:?}"
mode=${1:?usage: hosts_test.sh three|tcp}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"

need_root "creates network, mount and UTS namespaces"
for tool in ip unshare nsenter; do
  command -v "$tool" > /dev/null || skip "needs $tool"
done
unshare --net --uts --ipc --pid --mount --fork true 2> /dev/null \
  || skip "this kernel or sandbox does not allow new namespaces"

work=$(mktemp -d /tmp/dsa-hosts.XXXXXX)
on_exit "rm -rf '$work'"
source "$here/fake_hosts.sh"

case $mode in
  three) n=3 isolated= ;;
  tcp) n=2 isolated=isolated ;;
  *) fail "unknown mode $mode" ;;
esac

# The reference: the same run with all ranks on this machine.
demo_config "$work/reference" > "$work/reference.json"
bounded "$MPIEXEC" -n "$n" "$DSANALYZE" --config "$work/reference.json" --quiet \
  || fail "one-host mpiexec -n $n run failed"

hosts_up "$n" "$isolated"
log "hosts up: dsa-login ${hosts[*]}"
save="$private/out"
demo_config "$save" > "$work/run.json"

# Where each rank runs and whether it sees the save path: nothing yet.
where() {
  mpirun_on_login -n "$n" sh -c \
    'echo "$PMI_RANK $(hostname) $(test -e "$1" && echo sees || echo blind)"' _ "$save" | sort
}
expected=$(for ((i = 0; i < n; i++)); do echo "$i dsa-h$i blind"; done)
[[ $(where) == "$expected" ]] || fail "before the run, ranks should be one per host and see nothing: $(where)"

before=$(link_bytes 1)
mpirun_on_login -n "$n" "$DSANALYZE" --config "$work/run.json" --quiet \
  || fail "mpirun -n $n dsanalyze across ${hosts[*]} failed"
crossed=$(($(link_bytes 1) - before))
log "mpirun -n $n across ${hosts[*]}: done, $crossed bytes over dsa-h1's link"

# Only rank 0's host has the output; on the machine itself $private is empty.
expected=$(for ((i = 0; i < n; i++)); do echo "$i dsa-h$i $( ((i == 0)) && echo sees || echo blind)"; done)
got=$(where)
[[ $got == "$expected" ]] || fail "after the run, only rank 0 should see $save; got: $got"
for ((i = 1; i < n; i++)); do
  [[ -z $(ls -A "${host_dir[dsa-h$i]}") ]] || fail "dsa-h$i's private directory is not empty"
done
[[ -z $(ls -A "$private") ]] || fail "the machine's own $private is not empty"
same_output "$work/reference" "${host_dir[dsa-h0]}/out" "mpirun across ${hosts[*]}"

if [[ $mode == tcp ]]; then
  # The key exchange alone sends rank 1 hundreds of KiB; without TCP over the
  # bridge only launch and wire-up traffic (a few KiB) would cross it.
  ((crossed > 256 * 1024)) || fail "only $crossed bytes crossed the bridge: MPI did not use TCP"
  [[ $(readlink "/proc/$(cat "$DSA_FAKE_HOSTS/dsa-h1")/ns/ipc") != $(readlink /proc/self/ns/ipc) ]] \
    || fail "dsa-h1 has no IPC namespace of its own"
fi
log "output identical to the one-host run"
echo "PASS"
