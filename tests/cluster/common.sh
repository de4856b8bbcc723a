# shellcheck shell=bash
# Helpers shared by the cluster tests; sourced, not run.
#
# Every test here starts real daemons, namespaces or mounts. Each registers
# how to undo what it starts with on_exit right after starting it; the EXIT
# trap runs those in reverse order, on success and on failure alike. A test
# that cannot run here (not root, no namespaces) exits 77, which ctest reports
# as skipped (SKIP_RETURN_CODE in tests.cmake).

# The EXIT/INT/TERM trap runs the registered cleanups, newest first.
cleanups=()
on_exit() { cleanups+=("$1"); }
run_cleanups() {
  local rc=$? i
  trap - EXIT INT TERM
  # Quiet: failures here change nothing, and bash reports killed jobs.
  for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do { eval "${cleanups[i]}"; } 2>/dev/null || true; done
  exit "$rc"
}
trap run_cleanups EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t_start=$SECONDS
log() { echo "[$((SECONDS - t_start))s] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

need_root() {
  [[ $(id -u) -eq 0 ]] || skip "needs root ($1)"
}

# Every MPI launch is bounded twice: hydra's own MPIEXEC_TIMEOUT (it kills the
# ranks and exits non-zero) and timeout(1) around the launcher itself, since
# MPICH 4.0.2 can hang in MPI_Finalize on two or more hosts over TCP
# (docs/cluster.md).
: "${LAUNCH_TIMEOUT:=60}"
export MPIEXEC_TIMEOUT=$((LAUNCH_TIMEOUT - 10))
bounded() { timeout -k 5 "$LAUNCH_TIMEOUT" "$@"; }

# Kills (by PID) the processes started by this test that are still alive and
# waits for them: those whose environment holds the marker "NAME=VALUE".
# Daemons pass their environment on to whatever they start, so this finds
# what a killed daemon left behind.
kill_marked() {
  local marker=$1 pids=() pid
  unset "${marker%%=*}"  # so that the grep below does not match itself
  for pid in $(grep -lazxF -- "$marker" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3); do
    [[ $pid != "$$" && $pid != "$BASHPID" ]] && pids+=("$pid")
  done
  ((${#pids[@]})) || return 0
  kill -KILL "${pids[@]}" 2>/dev/null || true
}

# Stops a process started by this test: TERM, up to 5 s, then KILL.
stop_pid() {
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  { wait "$pid"; } 2>/dev/null || true  # quiet: no "Killed" notice
}

# The config of a small demo run writing to $1 (ranks x 1 thread).
demo_config() {
  cat <<EOF
{"dataset": {"type": "synthetic_mod", "num_samples": 100000},
 "metrics": [{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}],
 "output": {"path": "$1"},
 "map": {"threads": 1, "batch_size": 1024}}
EOF
}

# Fails unless directories $1 and $2 hold the same index and metric files
# (.bin/.idx, DeepSpeed's formats) with the same bytes. Report files such as
# summary.json name the save path and timings, so they differ by design.
same_output() {
  local files
  files=$(cd "$1" && find . -name '*.bin' -o -name '*.idx' | sort)
  [[ -n $files ]] || fail "$3: the reference run wrote no .bin/.idx files"
  [[ $files == "$(cd "$2" 2>/dev/null && find . -name '*.bin' -o -name '*.idx' | sort)" ]] \
    || fail "$3: not the same .bin/.idx files as the plain mpiexec run"
  local f
  for f in $files; do
    cmp "$1/$f" "$2/$f" >&2 || fail "$3: $f differs from the plain mpiexec run"
  done
}
