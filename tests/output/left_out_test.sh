#!/usr/bin/env bash
# output.files downstream, under mpiexec -n $NP: what a run left out is named
# as the cause wherever it shows.
# - summary.json's statistics note and the run's digest name the outputs left
#   out (not "not computed" while files were written);
# - the log says why there is no curriculum_config.json;
# - order, curriculum (the analysis's own proposal) and merge, needing a file
#   the run did not write, exit 2 with one line naming output.files;
# - compare of two analyses with no metric file in common exits 1 (nothing
#   compared is not "equal").
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

run() {  # run SAVE FILES_JSON [SAMPLE_RANGE]: the log in SAVE.log
  local range=""
  [[ $# -gt 2 ]] && range=', "sample_range": '"$3"
  printf '%s\n' '{"dataset": {"type": "synthetic_mod", "num_samples": 3000'"$range"'},
    "metrics": [{"name": "mod", "metric": "value"}],
    "output": {"path": "'"$1"'", "files": '"$2"'}}' > "$work/config.json"
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/config.json" 2> "$1.log" \
    || fail "run $2 exited $?: $(cat "$1.log")"
}
refused() {  # refused EXPECTED_LINE CMD...: exit 2, one line on stderr
  local want=$1 status=0; shift
  "$@" > "$work/out.txt" 2> "$work/err.txt" || status=$?
  [[ $status == 2 && $(wc -l < "$work/err.txt") == 1 ]] \
    || fail "$*: exit $status: $(cat "$work/err.txt")"
  grep -qF "$want" "$work/err.txt" || fail "$*: $(cat "$work/err.txt"), expected: $want"
}

a="$work/a"
run "$a" '["index_to_sample", "index_to_metric", "reports"]'
grep -qF "$a/curriculum_config.json: not written: the run's output.files left out percentile_merged" \
  "$a.log" || fail "the log does not say why there is no curriculum_config.json: $(cat "$a.log")"
refused "dsanalyze: error: $a/mod/mod_sample_to_metric: not written: the run's output.files left out sample_to_metric" \
  "$DSANALYZE" order --analysis "$a" --metric mod --out "$work/order.npy"
refused "dsanalyze: error: $a/curriculum_config.json: not written: the run's output.files left out percentile_merged" \
  "$DSANALYZE" curriculum --analysis "$a" --global-batch-size 8 --train-steps 10

s="$work/s"
run "$s" '["sample_to_metric", "reports"]'
python3 - "$s/summary.json" <<'PY' || fail "statistics note: $(cat "$s/summary.json")"
import json, sys
note = json.load(open(sys.argv[1]))["metrics"]["mod"]["statistics"]
assert note == ("no statistics: output.files left out index_to_metric, index_to_sample, "
                "which they are read from"), note
PY
grep -qF "mod: no statistics: output.files left out index_to_metric, index_to_sample" "$s.log" \
  || fail "digest: $(cat "$s.log")"

status=0
"$DSANALYZE" compare "$a" "$s" > "$work/compare.txt" || status=$?
[[ $status == 1 ]] && grep -q "nothing to compare: no metric file is in both A and B" "$work/compare.txt" \
  || fail "compare of analyses with no file in common exited $status: $(cat "$work/compare.txt")"
# The files neither side wrote are counted as skipped by choice, not left out of the count.
status=0
"$DSANALYZE" compare "$s" "$s" > "$work/compare.txt" || status=$?
[[ $status == 0 ]] \
  && grep -q "skipped by choice: mod/mod_index_to_metric: A and B chose not to write it" "$work/compare.txt" \
  && grep -q "1 equal, 0 equal except doc_idx, 0 different, 3 skipped by choice" "$work/compare.txt" \
  || fail "compare of two analyses that left out the same files exited $status: $(cat "$work/compare.txt")"

run "$work/p0" '["index_to_sample", "index_to_metric", "reports"]' '[0, 1000]'
run "$work/p1" '["index_to_sample", "index_to_metric", "reports"]' '[1000, 3000]'
refused "dsanalyze: error: merge: $work/p0/mod/mod_sample_to_metric: not written: the run's output.files left out sample_to_metric" \
  "$DSANALYZE" merge "$work/p0" "$work/p1" --out "$work/merged"
[[ ! -e "$work/merged" ]] || fail "a refused merge wrote its --out"
echo "output.files downstream: $NP rank(s): every command names the choice"
