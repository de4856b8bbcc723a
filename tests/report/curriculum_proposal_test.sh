#!/usr/bin/env bash
# curriculum_config.json with several metrics, under mpiexec -n $NP: the
# curriculum is proposed for ONE metric (the first single-value one, or
# output.curriculum_metric), the others are ready-to-add entries under
# "other_metrics", outside data_efficiency; the run's log says how to check
# it with `dsanalyze curriculum`, whose flags it names and which accepts the
# file; a bad output.curriculum_metric is one error line, exit 2.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

config() {  # config SAVE [CURRICULUM_METRIC]
  local named=""
  [[ $# -gt 1 ]] && named=', "curriculum_metric": "'"$2"'"'
  printf '%s\n' '{"dataset": {"type": "synthetic_mod", "num_samples": 4000, "modulus": 97},
    "metrics": [{"name": "total", "metric": "sum"}, {"name": "mod", "metric": "value"},
                {"name": "shifted", "metric": "value"},
                {"name": "third", "metric": "value"}],
    "output": {"path": "'"$1"'"'"$named"'}}' > "$work/config.json"
}
proposal() {  # proposal SAVE ACTIVE OTHERS...: the file proposes ACTIVE alone
  python3 - "$@" <<'PY'
import json, sys
save, active, others = sys.argv[1], sys.argv[2], sys.argv[3:]
doc = json.load(open(save + "/curriculum_config.json"))
de = doc["data_efficiency"]["data_sampling"]["curriculum_learning"]["curriculum_metrics"]
assert list(de) == [active], list(de)
assert list(doc["value_based_alternative"]["curriculum_metrics"]) == [active]
other = doc["other_metrics"]
assert list(other["curriculum_metrics"]) == others, other
assert list(other["value_based_curriculum_metrics"]) == others, other
entry = other["curriculum_metrics"][others[0]]
assert entry["difficulty_type"] == "percentile", entry
assert entry["index_to_sample_path"].endswith(others[0] + "_index_to_sample_percentile_merged")
PY
}

config "$work/a"
"$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/config.json" 2> "$work/a.log" \
  || fail "run exited $?: $(cat "$work/a.log")"
proposal "$work/a" mod shifted third || fail "first metric: $(cat "$work/a/curriculum_config.json")"
hint="curriculum_config.json: check it before training: dsanalyze curriculum --analysis $work/a --global-batch-size BATCH"
grep -qF "$hint" "$work/a.log" || fail "no hint in the log: $(cat "$work/a.log")"
status=0
"$DSANALYZE" curriculum --analysis "$work/a" --global-batch-size 8 --train-steps 200 \
  > "$work/curriculum.txt" || status=$?
[[ $status == 0 || $status == 1 ]] && grep -q "^curriculum: .*: 1 metric(s)" "$work/curriculum.txt" \
  || fail "the hinted check exited $status: $(cat "$work/curriculum.txt")"

config "$work/b" shifted
"$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/config.json" --quiet || fail "named run exited $?"
proposal "$work/b" shifted mod third || fail "named metric: $(cat "$work/b/curriculum_config.json")"

for bad in 'shifted_:is not a metric of this config (did you mean "shifted"?)' \
           'total:"total" is an accumulate_value_over_samples metric'; do
  config "$work/c" "${bad%%:*}"
  status=0
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/config.json" --quiet 2> "$work/err.txt" || status=$?
  [[ $status == 2 && $(grep -c . "$work/err.txt") == 1 ]] \
    && grep -qF "dsanalyze: error: config: output.curriculum_metric: " "$work/err.txt" \
    && grep -qF "${bad#*:}" "$work/err.txt" || fail "curriculum_metric ${bad%%:*}: exit $status: $(cat "$work/err.txt")"
  [[ ! -e "$work/c" ]] || fail "a refused config wrote its output"
done
echo "curriculum proposal: $NP rank(s): one metric proposed, the others ready to add"
