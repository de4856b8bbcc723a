#!/usr/bin/env bash
# Faults and concurrency under mpiexec -n $NP (issue #7, parts 2 and 3).
#
#   fault_test.sh kill POINT RANK   SIGKILL rank RANK paused at POINT (map,
#                                   exchange or write): mpiexec ends non-zero
#                                   within 10 s of the kill, no rank is left,
#                                   the save path's previous results are
#                                   byte-for-byte unchanged, and a rerun
#                                   removes the killed run's leftovers and
#                                   writes the same bytes as a clean run.
#   fault_test.sh interrupt SIG POINT RANK TO
#                                   SIG (INT, TERM or HUP) reaches the run
#                                   while rank RANK is paused at POINT (map,
#                                   sort, exchange, write, report or commit);
#                                   TO is mpiexec (which forwards it to every
#                                   rank), ranks (each rank directly) or
#                                   paused (that rank only). Before the
#                                   commit: exit 128+SIG within 10 s, one
#                                   line naming the signal and the stage, the
#                                   previous results byte-for-byte and no
#                                   staging directory or lock left. At
#                                   commit: the commit completes, exit 0,
#                                   clean-run output.
#   fault_test.sh merge SIG         `dsanalyze merge` of two parts into a new
#                                   folder, paused at `merge` (index files
#                                   being written in its staging folder), gets
#                                   SIG (INT or TERM): exit 128+SIG within
#                                   10 s, the run's one line, and no staging
#                                   folder, lock or --out folder left.
#   fault_test.sh lock              a second run into a save path that a
#                                   paused run holds fails fast (exit 3, one
#                                   line naming the lock and its holder) and
#                                   changes nothing; the first run, resumed,
#                                   completes with the right output.
#   fault_test.sh disk_full         a save path on a 2 MiB tmpfs: exit 3, one
#                                   line naming the file and "No space left
#                                   on device", nothing left; the tmpfs's
#                                   mount point as save path: exit 2.
#   fault_test.sh disk_full_old     the same over a previous (small) result,
#                                   which stays intact.
# The disk tests need root and a mount namespace; without them they exit 77
# (skipped).
#
# The pause is the test-only hook of lib/util/fault_point.h: the named rank
# writes its pid to a file and stops itself (SIGSTOP) at the named point, so
# "kill one rank during the exchange" happens at exactly that point.
set -euo pipefail
shopt -s extglob  # check_stage's patterns
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
mode=${1:?usage: fault_test.sh kill POINT RANK | interrupt SIG POINT RANK TO | merge SIG | lock | disk_full | disk_full_old}

# The disk tests re-run this script in a private mount namespace, where the
# tmpfs they mount disappears with the namespace whatever happens.
if [[ $mode == disk_full* && -z ${FAULT_TEST_IN_NAMESPACE:-} ]]; then
  [[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (mounts a tmpfs)"; exit 77; }
  unshare -m --propagation private true 2>/dev/null ||
    { echo "SKIP: mount namespaces not permitted"; exit 77; }
  exec env FAULT_TEST_IN_NAMESPACE=1 unshare -m --propagation private bash "$0" "$@"
fi

support=$(cd "$(dirname "$0")/../support" && pwd)
work=$(mktemp -d)
paused_pid=""
cleanup() {
  # A rank this test stopped and did not kill (on failure): kill it by pid.
  [[ -n $paused_pid ]] && kill -KILL "$paused_pid" 2>/dev/null
  mountpoint -q "$work/disk" 2>/dev/null && umount "$work/disk"
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
less_than() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# write_config NAME SAMPLES SAVE [DATASET_EXTRA]: a value and a sum metric over synthetic_mod;
# 64 KiB chunks and 512-sample batches put the pause points mid-stage. The
# sample sort's exchange runs only when the ranks' ids are not in rank order
# (lib/index/gather_write.h, WriteIndexFilesRankOrdered), so a test paused
# at "exchange" gives the samples reversed ids (dataset.sample_indices).
write_config() {
  local ids=""
  if [[ ${point:-} == exchange ]]; then
    python3 "$support/reversed_ids_npy.py" "$work/ids_$2.npy" "$2"
    ids=", \"sample_indices\": \"$work/ids_$2.npy\""
  fi
  cat > "$work/$1.json" <<EOF
{"dataset": {"type": "synthetic_mod", "num_samples": $2$ids${4:-}},
 "metrics": [{"name": "v", "metric": "value"}, {"name": "s", "metric": "sum"}],
 "output": {"path": "$3", "chunk_bytes": 65536, "total_curriculum_step": 1000},
 "map": {"threads": 2, "batch_size": 512}}
EOF
}

# run NAME: runs config NAME to the end, stderr to $work/NAME.err; returns its exit code.
run() {
  local rc=0
  timeout -k 5 60 "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/$1.json" --progress never \
    > "$work/$1.out" 2> "$work/$1.err" || rc=$?
  return "$rc"
}
run_ok() { run "$1" || { cat "$work/$1.err" >&2; fail "$1: dsanalyze exited $?"; }; }

# The content of a save path: every entry, with the sha256 of every file.
# A run's own entries (lock, staging folder) are beside it, never inside
# (lib/output/commit_recovery.h).
snapshot() {
  (cd "$1" && find . -mindepth 1 -printf '%y %p\n' | sort &&
    find . -type f -print0 | sort -z | xargs -0r sha256sum)
}
# A run's entries beside the save path S: .S.dsanalyze-run.lock, .S.dsanalyze.lock,
# .S.dsanalyze-staging-*, .S.dsanalyze-carried.
hidden_leftovers() { (cd "$(dirname "$1")" && find . -maxdepth 1 -name ".$(basename "$1").dsanalyze*" | sort); }
staging_glob() { echo "$(dirname "$1")/.$(basename "$1").dsanalyze-staging-*"; }

# Same bytes in A and B, except summary.json and report.html (timings, save
# path). DeepSpeed's outputs are the metric directories; curriculum_config.json
# names them.
same_output() {
  diff -r -x summary.json -x report.html -x curriculum_config.json "$1" "$2" > /dev/null ||
    fail "$3: output differs from a clean run: $(diff -rq -x summary.json "$1" "$2" | head -3)"
  diff <(sed "s|$1|SAVE|g" "$1/curriculum_config.json") \
    <(sed "s|$2|SAVE|g" "$2/curriculum_config.json") > /dev/null ||
    fail "$3: curriculum_config.json differs from a clean run's"
}

# Processes of this test's runs: their command line holds a config under $work.
leftover_processes() { pgrep -f -- "--config $work/" || true; }

# start_paused NAME POINT RANK [OPTION...]: starts config NAME in the
# background with rank RANK stopping at POINT; waits until it has stopped and
# sets paused_pid.
start_paused() {
  pause_at "$1" "$2" "$3" "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/$1.json" \
    --progress never "${@:4}"
}

# pause_at NAME POINT RANK COMMAND...: starts COMMAND in the background (under
# timeout; mpiexec_pid), its output in $work/NAME.{out,err}, with rank RANK
# stopping at POINT; waits until it has stopped and sets paused_pid.
pause_at() {
  rm -f "$work/pid"
  DSANALYZE_TEST_PAUSE_AT="$2:$3" DSANALYZE_TEST_PAUSE_FILE="$work/pid" \
    timeout -k 5 120 "${@:4}" > "$work/$1.out" 2> "$work/$1.err" &
  mpiexec_pid=$!
  local i
  for ((i = 0; i < 600; i++)); do
    [[ -s $work/pid ]] && break
    kill -0 "$mpiexec_pid" 2>/dev/null || { cat "$work/$1.err" >&2; fail "$1 ended before $2"; }
    sleep 0.1
  done
  [[ -s $work/pid ]] || fail "$1: rank $3 never reached $2"
  paused_pid=$(cat "$work/pid")
  # Stopped (T) is the state the hook leaves it in.
  for ((i = 0; i < 50; i++)); do
    [[ $(ps -o stat= -p "$paused_pid") == T* ]] && return 0
    sleep 0.1
  done
  fail "$1: rank $3 (pid $paused_pid) did not stop at $2"
}

# wait_for_glob PATTERN WHAT: the other ranks may still be on their way to the
# state the point implies (rank 0 opening the index files, say).
wait_for_glob() {
  local i
  for ((i = 0; i < 100; i++)); do
    compgen -G "$1" > /dev/null && return 0
    sleep 0.1
  done
  fail "$2: nothing matches $1"
}

# The state of the save path proves the pause is where its name says.
check_stage() {  # POINT SAVE
  wait_for_glob "$(staging_glob "$2")" "$1: staging directory"
  local staging
  staging=$(compgen -G "$(staging_glob "$2")")
  case $1 in
    map)
      # Nothing but the first metric's sample_to_metric, under its temporary
      # names: its .idx's sizes go on through the map (index/scalar_rows.h).
      [[ -z $(find "$staging" -mindepth 1 ! -path "$staging/v" \
        ! -path "$staging/v/v_sample_to_metric.bin.tmp" \
        ! -path "$staging/v/v_sample_to_metric.idx.tmp") ]] ||
        fail "map: the staging directory holds more than sample_to_metric's temporary files" ;;
    exchange)
      # Its .bin written; on one node it is finished only with the metric's
      # index files (its .idx is written beside them, index/scalar_rows.h).
      wait_for_glob "$staging/v/v_sample_to_metric.@(bin|bin.tmp)" "exchange: sample_to_metric written"
      ! compgen -G "$staging/v/v_index_to_sample*" > /dev/null ||
        fail "exchange: index files exist before the exchange" ;;
    write)
      # Under its temporary name, or (ranks writing their own ids, group_write.h)
      # the ids' element file.
      wait_for_glob "$staging/v/v_index_to_sample.@(bin.tmp|ids.bin)" "write: index file being written"
      ! compgen -G "$staging/v/v_index_to_sample.bin" > /dev/null ||
        fail "write: index file finished before the kill" ;;
  esac
}

test_kill() {
  local point=$1 rank=$2 save=$work/save
  ((rank < NP)) || fail "rank $rank does not exist at -n $NP"
  # A previous good run (different size, so every file differs from the new run's).
  write_config previous 30000 "$save"
  run_ok previous
  local before
  before=$(snapshot "$save")

  write_config big 300000 "$save"
  start_paused big "$point" "$rank"
  check_stage "$point" "$save"
  [[ -n $(leftover_processes) ]] || fail "cannot see the run's processes (pgrep)"
  kill -KILL "$paused_pid"
  local t0 rc=0 elapsed
  t0=$(now)
  wait "$mpiexec_pid" || rc=$?
  elapsed=$(seconds_since "$t0")
  paused_pid=""
  echo "kill $point rank $rank of $NP: mpiexec exited $rc, $elapsed s after the kill"
  ((rc != 0)) || fail "mpiexec exited 0 after a rank was killed"
  ((rc != 124 && rc != 137)) || fail "mpiexec hung after the kill (ended by timeout)"
  less_than "$elapsed" 10 || fail "mpiexec took $elapsed s to end after the kill"
  while [[ -n $(leftover_processes) ]]; do
    less_than "$(seconds_since "$t0")" 10 || fail "processes left: $(leftover_processes)"
    sleep 0.1
  done
  [[ $(snapshot "$save") == "$before" ]] || fail "the previous results changed"
  local stale
  stale=$(hidden_leftovers "$save")
  echo "left by the killed run: ${stale//$'\n'/ }"
  echo "the killed run's stderr:"
  cat "$work/big.err"

  # The rerun takes over the lock, removes the stale staging directory and
  # writes what a clean run writes.
  run_ok big
  [[ -z $(hidden_leftovers "$save") ]] || fail "rerun left $(hidden_leftovers "$save")"
  if [[ $stale == *staging* ]]; then
    grep -q "removed .*\.save\.dsanalyze-staging-.*, left by a run that did not finish" "$work/big.err" ||
      fail "the rerun did not report removing the stale staging directory"
  fi
  write_config clean 300000 "$work/clean"
  run_ok clean
  same_output "$save" "$work/clean" "rerun after kill at $point"
}

# in_mask STATUS FIELDS SIG: one of the signal masks FIELDS (e.g. SigBlk, or
# ShdPnd|SigPnd) of the /proc status file STATUS holds SIG. False when the
# file cannot be read.
in_mask() {
  local masks m
  masks=$(awk -v fields="^($2):" '$0 ~ fields { print $2 }' "$1" 2>/dev/null) || return 1
  for m in $masks; do (((16#$m >> ($3 - 1)) & 1)) && return 0; done
  return 1
}

# signal_pending PID SIG: SIG waits for PID (stopped) to take it.
signal_pending() { in_mask "/proc/$1/status" 'ShdPnd|SigPnd' "$2"; }

# threads_taking PID SIG: the threads of PID, other than its main thread, that
# do not block SIG (so the kernel may hand them a SIG sent to the process). The
# run's own workers and the threads MPI_Init starts must all block it: handled
# on one of them, a signal pending before the last checkpoint could be seen
# only after it (util/interrupt.h). A thread that ends meanwhile is skipped.
threads_taking() {
  local task
  for task in /proc/"$1"/task/*; do
    [[ ${task##*/} == "$1" ]] && continue
    in_mask "$task/status" SigBlk "$2" || [[ ! -e $task/status ]] ||
      echo "${task##*/} ($(cat "$task/comm" 2>/dev/null))"
  done
}

# The run's ranks: the children of mpiexec's children (hydra's proxies).
rank_pids() {
  local launcher proxy
  launcher=$(pgrep -P "$mpiexec_pid")  # mpiexec, under timeout
  for proxy in $(pgrep -P "$launcher"); do pgrep -P "$proxy"; done
}

test_interrupt() {
  local sig=$1 point=$2 rank=$3 to=$4 save=$work/save
  local signum stage
  signum=$(kill -l "$sig")
  # The stage the message names: where the run next checks for a signal.
  case $point in report | commit) stage=commit ;; *) stage=$point ;; esac
  write_config previous 30000 "$save"
  run_ok previous
  local before
  before=$(snapshot "$save")

  write_config big 300000 "$save"
  start_paused big "$point" "$rank" --log-level warn
  check_stage "$point" "$save"
  local pid takers
  for pid in $(rank_pids); do
    takers=$(threads_taking "$pid" "$signum")
    [[ -z $takers ]] || fail "threads of rank pid $pid that do not block SIG$sig: $takers"
  done
  case $to in
    mpiexec) kill "-$sig" "$(pgrep -P "$mpiexec_pid")" ;;
    ranks) kill "-$sig" $(rank_pids) ;;
    paused) kill "-$sig" "$paused_pid" ;;
  esac
  # Resume the paused rank only once the signal waits for it, so it is
  # interrupted at POINT and not further on.
  local rc elapsed
  resume_signalled "$sig"
  echo "SIG$sig to $to, rank $rank of $NP paused at $point: mpiexec exited $rc after $elapsed s"
  echo "stdout (mpiexec's):"
  cat "$work/big.out"
  echo "stderr:"
  cat "$work/big.err"
  less_than "$elapsed" 10 || fail "the run took $elapsed s to end"
  [[ -z $(leftover_processes) ]] || fail "processes left: $(leftover_processes)"
  [[ -z $(hidden_leftovers "$save") ]] || fail "left behind: $(hidden_leftovers "$save")"
  local said
  # Not counted: the test's own pause line and, with more ranks than cores, the
  # oversubscription warning.
  said=$(grep -v -e '^dsanalyze: test pause at ' -e '^dsanalyze: warning: .* ranks on a ' \
    "$work/big.err" || true)
  if [[ $point == commit ]]; then
    ((rc == 0)) || fail "exit code $rc after a signal during the commit, expected 0"
    [[ $said == *"[warning] SIG$sig arrived during the commit, which was completed" ]] ||
      fail "stderr is not the one warning line: $said"
    write_config clean 300000 "$work/clean"
    run_ok clean
    same_output "$save" "$work/clean" "the run signalled during its commit"
    return 0
  fi
  ((rc == 128 + signum)) || fail "exit code $rc, expected $((128 + signum))"
  [[ $said == "dsanalyze: interrupted by SIG$sig during $stage; nothing was committed" ]] ||
    fail "stderr is not the one interruption line: $said"
  [[ $(snapshot "$save") == "$before" ]] || fail "the previous results changed"
}

# resume_signalled SIG: once SIG waits for the paused process, resumes it and
# waits for mpiexec_pid's command; sets the caller's rc and elapsed.
resume_signalled() {
  local i signum
  signum=$(kill -l "$1")
  for ((i = 0; i < 100; i++)); do
    signal_pending "$paused_pid" "$signum" && break
    sleep 0.1
  done
  signal_pending "$paused_pid" "$signum" || fail "SIG$1 never reached the paused process"
  local t0
  t0=$(now)
  kill -CONT "$paused_pid"
  paused_pid=""
  rc=0
  wait "$mpiexec_pid" || rc=$?
  elapsed=$(seconds_since "$t0")
}

test_merge_interrupt() {
  local sig=$1 out=$work/new/merged signum rc elapsed
  signum=$(kill -l "$sig")
  write_config part0 300000 "$work/part0" ', "sample_range": [0, 150000]'
  write_config part1 300000 "$work/part1" ', "sample_range": [150000, 300000]'
  run_ok part0
  run_ok part1
  pause_at merge merge 0 "$DSANALYZE" merge "$work/part0" "$work/part1" --out "$out"
  wait_for_glob "$(staging_glob "$out")/v/v_index_to_*.tmp" "merge: index files being written"
  [[ -e $work/new/.merged.dsanalyze-run.lock ]] || fail "merge: no run lock beside --out while paused"
  local takers
  takers=$(threads_taking "$paused_pid" "$signum")
  [[ -z $takers ]] || fail "threads of the merge that do not block SIG$sig: $takers"
  kill "-$sig" "$paused_pid"
  resume_signalled "$sig"
  echo "SIG$sig to merge paused at merge: exit $rc after $elapsed s"
  cat "$work/merge.err"
  less_than "$elapsed" 10 || fail "the merge took $elapsed s to end"
  ((rc == 128 + signum)) || fail "exit code $rc, expected $((128 + signum))"
  local said
  said=$(grep -v '^dsanalyze: test pause at ' "$work/merge.err" || true)
  [[ $said == "dsanalyze: interrupted by SIG$sig during merge; nothing was committed" ]] ||
    fail "stderr is not the one interruption line: $said"
  [[ ! -e $work/new ]] || fail "the merge left $(find "$work/new")"
}

test_lock() {
  local save=$work/save
  write_config first 300000 "$save"
  start_paused first map 0  # rank 0 holds the lock while stopped
  local before
  # The save path and the run's entries beside it (lock, staging folder).
  before=$(cd "$work" && find . -path './save*' -o -path './.save.*' | sort)

  write_config second 1000 "$save"
  local t0 rc=0 elapsed
  t0=$(now)
  run second || rc=$?
  elapsed=$(seconds_since "$t0")
  echo "second run: exit $rc after $elapsed s"
  ((rc == 3)) || { cat "$work/second.err" >&2; fail "second run exited $rc, expected 3"; }
  less_than "$elapsed" 5 || fail "second run took $elapsed s to fail"
  local expected="dsanalyze: error: output.path $save: another dsanalyze run is writing here"
  expected+=" (lock $work/.save.dsanalyze-run.lock held by pid $paused_pid on host $(hostname))"
  [[ $(cat "$work/second.err") == "$expected" ]] ||
    fail "second run's stderr is not the one lock line: $(cat "$work/second.err")"
  [[ $(cd "$work" && find . -path './save*' -o -path './.save.*' | sort) == "$before" ]] ||
    fail "the second run changed the save path"

  kill -CONT "$paused_pid"
  paused_pid=""
  rc=0
  wait "$mpiexec_pid" || rc=$?
  ((rc == 0)) || { cat "$work/first.err" >&2; fail "the first run, resumed, exited $rc"; }
  [[ -z $(hidden_leftovers "$save") ]] || fail "first run left $(hidden_leftovers "$save")"
  write_config clean 300000 "$work/clean"
  run_ok clean
  same_output "$save" "$work/clean" "the resumed first run"
}

# Output of 200000 samples (~2.4 MB of sample_to_metric index alone) does not
# fit in 2 MiB; 1000 samples do.
test_disk_full() {
  local keep_old=$1 disk=$work/disk save=$work/disk/save
  mkdir -p "$disk"
  mount -t tmpfs -o size=2m tmpfs "$disk" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
  # The mount point itself cannot be swapped (lib/output/analysis_writer.h): bad input.
  write_config at_mount 1000 "$disk"
  local rc=0
  run at_mount || rc=$?
  ((rc == 2)) || fail "a mount point as save path: exit $rc, expected 2"
  [[ $(cat "$work/at_mount.err") == "dsanalyze: error: output.path $disk: is a mount point"* ]] ||
    fail "a mount point as save path: $(cat "$work/at_mount.err")"
  [[ -z $(ls -A "$disk") ]] || fail "a refused run wrote $(ls -A "$disk")"
  local before=""
  if ((keep_old)); then
    write_config small 1000 "$save"
    run_ok small
    before=$(snapshot "$save")
  fi
  write_config big 200000 "$save"
  local t0 elapsed
  rc=0
  t0=$(now)
  timeout -k 5 60 "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/big.json" --quiet \
    > "$work/big.out" 2> "$work/big.err" || rc=$?
  elapsed=$(seconds_since "$t0")
  echo "full disk: exit $rc after $elapsed s: $(cat "$work/big.err")"
  ((rc == 3)) || fail "exit code $rc, expected 3"
  less_than "$elapsed" 10 || fail "took $elapsed s"
  [[ $(wc -l < "$work/big.err") -eq 1 ]] || fail "stderr is not one line: $(cat "$work/big.err")"
  grep -Eq "^dsanalyze: error: $disk/\.save\.dsanalyze-staging-[^/]+/[^ ]+: .*No space left on device" \
    "$work/big.err" || fail "the error line does not name the file and 'No space left on device'"
  [[ -z $(leftover_processes) ]] || fail "processes left: $(leftover_processes)"
  [[ -z $(hidden_leftovers "$save") ]] || fail "left behind: $(hidden_leftovers "$save")"
  if ((keep_old)); then
    [[ $(snapshot "$save") == "$before" ]] || fail "the previous result changed"
  else
    [[ -z $(ls -A "$disk") ]] || fail "the disk is not empty: $(ls -A "$disk")"
  fi
}

case $mode in
  kill) test_kill "${2:?point}" "${3:?rank}" ;;
  interrupt) test_interrupt "${2:?signal}" "${3:?point}" "${4:?rank}" "${5:?to}" ;;
  merge) test_merge_interrupt "${2:?signal}" ;;
  lock) test_lock ;;
  disk_full) test_disk_full 0 ;;
  disk_full_old) test_disk_full 1 ;;
  *) fail "unknown mode $mode" ;;
esac
echo PASS
