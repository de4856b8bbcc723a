#!/usr/bin/env bash
# The whole analysis commits in one step (issue 35): SIGKILL at every step of
# the commit leaves the save path holding the complete previous analysis or
# the complete new one, and the next run cleans up.
#
#   commit_kill_test.sh run  under mpiexec -n $NP: rank 0 is paused at each
#       commit step (lib/output/analysis_writer.h: commit_carry, commit,
#       commit_swapped) and SIGKILLed while a 1-metric analysis replaces a
#       4-metric one; then rank NP-1 is SIGKILLed at each step while the
#       4-metric analysis replaces the 1-metric one. One chain of runs, each
#       the next one's predecessor, keeps the MPI launches few (9).
#   commit_kill_test.sh merge  `dsanalyze merge` SIGKILLed at `merge` and at
#       each commit step: into a new --out (nothing appears there) and over
#       an earlier merge (unchanged before the swap, replaced after it).
# After each kill: the save path's analysis equals a complete run's
# byte-for-byte (summary.json without its timings and peak memory), and
# `dsanalyze verify` passes. The next run, paused in turn, finds no earlier
# staging folder and no list of carried entries left. The user's files
# (a file, a folder, a hidden file), which each commit carries into the new
# analysis, are all there with their bytes once the last run is done, and
# that run leaves nothing beside or inside the save path.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
mode=${1:?usage: commit_kill_test.sh run | merge}
work=$(mktemp -d)
paused_pid=""
cleanup() {
  [[ -n $paused_pid ]] && kill -KILL "$paused_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# config NAME SAVE SAMPLES METRICS [DATASET_EXTRA]: synthetic_mod, small.
config() {
  cat > "$work/$1.json" <<EOF
{"dataset": {"type": "synthetic_mod", "num_samples": $3${5:-}},
 "metrics": $4, "output": {"path": "$2"}, "map": {"threads": 1, "batch_size": 256}}
EOF
}
ONE='[{"name": "v", "metric": "value"}]'
FOUR='[{"name": "v", "metric": "value"}, {"name": "w", "metric": "value"},
       {"name": "s", "metric": "sum"}, {"name": "t", "metric": "sum"}]'

run_full() {  # NAME
  timeout -k 5 60 "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/$1.json" --quiet ||
    fail "$1: dsanalyze exited $?"
}

# digest DIR: one line per file of the analysis in DIR (the user's entries
# left out): its sha256, or for summary.json that of its JSON without the
# fields that differ between two runs of one config, and for report.html
# that of its headings (they name the metrics).
digest() {
  python3 - "$1" <<'EOF'
import hashlib, json, os, re, sys
root = sys.argv[1]
user = {"notes.txt", "plots", ".keep"}
for dirpath, dirs, files in os.walk(root):
    dirs.sort()
    if dirpath == root:
        dirs[:] = [d for d in dirs if d not in user]
    for name in sorted(files):
        rel = os.path.relpath(os.path.join(dirpath, name), root)
        if rel in user:
            continue
        data = open(os.path.join(dirpath, name), "rb").read()
        if rel == "summary.json":
            s = json.loads(data)
            for key in ("timings", "peak_rss_bytes", "peak_anon_bytes"):
                s.pop(key, None)
            data = json.dumps(s, sort_keys=True).encode()
        if rel == "report.html":
            # The page's numbers (timings, memory) differ between two runs of
            # one config; its headings name the analysis's metrics.
            data = b"\n".join(re.findall(rb"<h[1-3][^>]*>[^<]*</h[1-3]>", data))
        print(hashlib.sha256(data).hexdigest(), rel)
EOF
}

add_user_entries() {  # DIR
  printf 'mine' > "$1/notes.txt"
  mkdir -p "$1/plots"
  printf 'plot' > "$1/plots/a.txt"
  printf 'k' > "$1/.keep"
}
check_user_entries() {  # DIR WHAT
  [[ $(cat "$1/notes.txt" 2>/dev/null) == mine && $(cat "$1/plots/a.txt" 2>/dev/null) == plot &&
     $(cat "$1/.keep" 2>/dev/null) == k ]] || fail "$2: the user's entries are not all there"
}

# check_analysis DIR DIGEST WHAT: DIR holds exactly that analysis, and verify agrees.
check_analysis() {
  [[ $(digest "$1") == "$2" ]] ||
    fail "$3: the analysis is neither whole old nor whole new: $(diff <(echo "$2") <(digest "$1") | head -5)"
  "$DSANALYZE" verify "$1" > "$work/verify.txt" || fail "$3: verify exited $?: $(tail -3 "$work/verify.txt")"
}

# No run's leftovers beside or inside SAVE.
check_clean() {  # SAVE WHAT
  local left
  left=$(cd "$(dirname "$1")" && find . -maxdepth 1 -name ".$(basename "$1").*")
  [[ -z $left ]] || fail "$2: left beside the save path: $left"
  [[ ! -e $1 ]] || [[ -z $(cd "$1" && find . -maxdepth 1 -name '.dsanalyze*') ]] ||
    fail "$2: left in the save path: $(cd "$1" && find . -maxdepth 1 -name '.dsanalyze*')"
}

# pause NAME POINT SAVE COMMAND...: starts COMMAND in the background with
# rank 0 stopping at POINT, waits until it has stopped; sets paused_pid and
# launcher_pid. Then checks that the killed run before it left nothing: one
# staging folder (this run's) beside SAVE, and no list of carried entries
# but this run's.
pause() {
  rm -f "$work/pid"
  DSANALYZE_TEST_PAUSE_AT="$2:0" DSANALYZE_TEST_PAUSE_FILE="$work/pid" \
    timeout -k 5 60 "${@:4}" > "$work/$1.out" 2> "$work/$1.err" &
  launcher_pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    [[ -s $work/pid ]] && break
    kill -0 "$launcher_pid" 2>/dev/null || { cat "$work/$1.err" >&2; fail "$1 ended before $2"; }
    sleep 0.05
  done
  [[ -s $work/pid ]] || fail "$1: never reached $2"
  paused_pid=$(cat "$work/pid")
  for ((i = 0; i < 100; i++)); do
    [[ $(ps -o stat= -p "$paused_pid") == T* ]] && break
    sleep 0.05
  done
  local staging
  staging=$(cd "$(dirname "$3")" && find . -maxdepth 1 -name ".$(basename "$3").dsanalyze-staging-*")
  [[ $(wc -l <<< "$staging") == 1 && -n $staging ]] ||
    fail "$1 at $2: staging folders beside the save path: ${staging//$'\n'/ }"
  local list
  list=$(dirname "$3")/.$(basename "$3").dsanalyze-carried
  [[ ! -e $list || $(grep -o '"staging":"[^"]*"' "$list") == "\"staging\":\"${staging#./}\"" ]] ||
    fail "$1 at $2: an earlier commit's list of carried entries is left: $(cat "$list")"
}

# The pid of rank R of the paused mpiexec (hydra sets PMI_RANK).
rank_pid() {
  local p
  for p in $(pgrep -f -- "--config $work/"); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "PMI_RANK=$1" && echo "$p"
  done
}

# kill_paused WHOM: SIGKILL to the paused rank 0 or (other) to rank NP-1; the
# launcher must end non-zero, every process of the run gone.
kill_paused() {
  local victim=$paused_pid rc=0 i
  [[ $1 == other ]] && victim=$(rank_pid $((NP - 1)))
  [[ -n $victim ]] || fail "no process to kill"
  kill -KILL "$victim"
  wait "$launcher_pid" || rc=$?
  ((rc != 0)) || fail "the run exited 0 after a SIGKILL"
  for ((i = 0; i < 100; i++)); do
    kill -0 "$paused_pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -0 "$paused_pid" 2>/dev/null && fail "rank 0 (pid $paused_pid) outlived the kill"
  paused_pid=""
}

test_run() {
  local save=$work/save
  config one "$save" 2000 "$ONE"
  config four "$save" 3000 "$FOUR"
  run_full one
  local d_one d_four
  d_one=$(digest "$save")
  add_user_entries "$save"
  run_full four
  d_four=$(digest "$save")
  check_user_entries "$save" "the 4-metric run"
  local old=$d_four new name whom point
  for name in one four; do
    [[ $name == one ]] && whom=0 new=$d_one || whom=other new=$d_four
    for point in commit_carry commit commit_swapped; do
      pause "$name" "$point" "$save" "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/$name.json" \
        --quiet
      kill_paused "$whom"
      [[ $point == commit_swapped ]] && old=$new
      check_analysis "$save" "$old" "$name killed at $point ($whom of $NP)"
      echo "killed $whom of $NP at $point of the $name-metric commit: $(ls "$save" | tr '\n' ' ')"
    done
  done
  run_full one
  check_analysis "$save" "$d_one" "the run after the kills"
  check_user_entries "$save" "the run after the kills"
  check_clean "$save" "the run after the kills"
}

test_merge() {
  local out=$work/merged
  config a0 "$work/a0" 2000 "$ONE" ', "sample_range": [0, 1000]'
  config a1 "$work/a1" 2000 "$ONE" ', "sample_range": [1000, 2000]'
  config b0 "$work/b0" 3000 "$FOUR" ', "sample_range": [0, 1500]'
  config b1 "$work/b1" 3000 "$FOUR" ', "sample_range": [1500, 3000]'
  local part
  for part in a0 a1 b0 b1; do run_full "$part"; done
  local merge_a=("$DSANALYZE" merge "$work/a0" "$work/a1" --out "$out" --progress never)
  local merge_b=("$DSANALYZE" merge "$work/b0" "$work/b1" --out "$out" --progress never)
  local point
  # Into a new --out: nothing appears there until the swap.
  for point in merge commit; do
    pause merge "$point" "$out" "${merge_a[@]}"
    kill_paused 0
    [[ ! -e $out ]] || fail "merge killed at $point: --out exists: $(ls -A "$out")"
  done
  "${merge_a[@]}" || fail "merge exited $?"
  local d_a d_b
  d_a=$(digest "$out")
  add_user_entries "$out"
  "${merge_b[@]}" || fail "merge exited $?"
  d_b=$(digest "$out")
  # Over the earlier merge: unchanged until the swap, the new one after it.
  local expected=$d_b
  for point in merge commit_carry commit commit_swapped; do
    pause merge "$point" "$out" "${merge_a[@]}"
    kill_paused 0
    [[ $point == commit_swapped ]] && expected=$d_a
    check_analysis "$out" "$expected" "merge killed at $point"
    echo "killed merge at $point: $(ls "$out" | tr '\n' ' ')"
  done
  "${merge_a[@]}" || fail "merge exited $?"
  check_analysis "$out" "$d_a" "the merge after the kills"
  check_user_entries "$out" "the merge after the kills"
  check_clean "$out" "the merge after the kills"
}

case $mode in
  run) test_run ;;
  merge) test_merge ;;
  *) fail "unknown mode $mode" ;;
esac
echo PASS
