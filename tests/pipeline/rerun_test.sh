#!/usr/bin/env bash
# A second run into the same save path under mpiexec -n $NP (issue #17): the
# committed folder holds exactly the new analysis. Metric folders the new run
# does not write, a curriculum_config.json it does not write and DeepSpeed's
# data_clusters/ are gone; the user's own files and folders stay; verify and
# compare see one analysis. Then verify and compare on a folder with a planted
# stale metric folder, and compare on a folder that is no analysis.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
save="$work/out"

run() {  # run METRICS_JSON
  printf '%s\n' '{"dataset": {"type": "synthetic_mod", "num_samples": 5000},
    "metrics": '"$1"', "output": {"path": "'"$save"'"}, "map": {"batch_size": 256}}' \
    > "$work/config.json"
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/config.json" --quiet \
    || fail "dsanalyze exited $?"
}

run '[{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}]'
cp -r "$save" "$work/first"
[[ -f "$save/curriculum_config.json" ]] || fail "first run wrote no curriculum_config.json"
mkdir "$save/data_clusters" "$save/my_plots"  # DeepSpeed's clusters; a user's folder
printf 'x' > "$save/data_clusters/cluster_mod1.bin"
printf 'mine' > "$save/notes.txt"

# Second run: only the accumulate metric, so no curriculum_config.json either.
run '[{"name": "batch_sum", "metric": "sum"}]'
entries=$(cd "$save" && ls -A | grep -v '^\.dsanalyze' | tr '\n' ' ')
[[ "$entries" == "batch_sum my_plots notes.txt report.html summary.json " ]] \
  || fail "after the rerun the save path holds: $entries"
[[ "$(cat "$save/notes.txt")" == mine ]] || fail "notes.txt changed"
[[ -z "$(find "$work" -maxdepth 1 -name '.out.dsanalyze*')" ]] || fail "staging or lock left behind"
"$DSANALYZE" verify "$save" > "$work/verify.txt" || fail "verify exited $?: $(cat "$work/verify.txt")"
grep -q "all invariants hold for 1 metric(s)" "$work/verify.txt" || fail "verify: $(cat "$work/verify.txt")"
status=0; "$DSANALYZE" compare "$work/first" "$save" > "$work/compare.txt" || status=$?
[[ $status == 1 ]] || fail "compare of the two analyses exited $status"
grep -q "different: mod: metric only in A" "$work/compare.txt" || fail "compare: $(cat "$work/compare.txt")"

# A stale folder planted back (as the old code left it): verify and compare flag it.
cp -r "$work/first/mod" "$save/mod"
status=0; "$DSANALYZE" verify "$save" > "$work/verify.txt" || status=$?
[[ $status == 1 ]] || fail "verify with a planted folder exited $status"
grep -q "FAIL mod: mod: metric folder is not listed in summary.json" "$work/verify.txt" \
  || fail "verify: $(cat "$work/verify.txt")"
status=0; "$DSANALYZE" compare "$work/first" "$save" > "$work/compare.txt" || status=$?
[[ $status == 1 ]] || fail "compare with a planted folder exited $status"
grep -q "different: mod: metric folder in B is not listed in B's summary.json" "$work/compare.txt" \
  || fail "compare: $(cat "$work/compare.txt")"

# A third run removes the planted folder again, and the same run twice compares equal.
run '[{"name": "batch_sum", "metric": "sum"}]'
[[ ! -e "$save/mod" ]] || fail "the third run left mod/"
cp -r "$save" "$work/second"
run '[{"name": "batch_sum", "metric": "sum"}]'
"$DSANALYZE" compare --strict "$work/second" "$save" > /dev/null || fail "reruns differ"

# compare on a folder that is no analysis: exit 2, one line on stderr.
status=0; "$DSANALYZE" compare "$save" "$save/my_plots" > "$work/out.txt" 2> "$work/err.txt" || status=$?
[[ $status == 2 ]] || fail "compare with a non-analysis folder exited $status"
[[ $(wc -l < "$work/err.txt") == 1 && ! -s "$work/out.txt" ]] || fail "compare printed: $(cat "$work/out.txt" "$work/err.txt")"
grep -q "^dsanalyze: error: .*my_plots: not an analysis folder" "$work/err.txt" || fail "$(cat "$work/err.txt")"
echo "rerun: ok (np=$NP)"
