#!/usr/bin/env bash
# Metric plugins in real runs under mpiexec -n $NP (threads 1 and 2):
# - the example plugin's token_sum and token_histogram over a generated token
#   dataset, checked against values computed here in Python;
# - `dsanalyze metrics --plugin` lists its metrics;
# - plugin errors end the run with exit code 2 and one clear line: missing
#   file, metric not exported, compute error, wrong number of values.
# Usage: plugin_run_test.sh EXAMPLE_PLUGIN.so FAULTY_PLUGIN.so
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
example=$1 faulty=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$DSANALYZE" generate "$work/tok" --documents 3000 --vocab-size 1000 --max-length 64 \
  --seed 5 > /dev/null
dataset='{"type": "documents", "prefixes": ["'"$work/tok"'"]}'

config() {  # config NAME THREADS METRICS_JSON
  printf '%s\n' '{"dataset": '"$dataset"', "metrics": '"$3"',
    "output": {"path": "'"$work/$1"'"}, "map": {"threads": '"$2"', "batch_size": 100}}' \
    > "$work/$1.json"
}

for threads in 1 2; do
  name="ok_t$threads"
  config "$name" "$threads" '[{"name": "tsum", "plugin": "'"$example"'", "metric": "token_sum"},
    {"name": "hist", "plugin": "'"$example"'", "metric": "token_histogram",
     "params": {"vocab_size": 1000, "buckets": 10}}]'
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/$name.json" --quiet || fail "$name: exit $?"
  python3 - "$work/tok" "$work/$name" <<'PY'
import struct, sys
tok, out = sys.argv[1], sys.argv[2]
DT = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}  # deepspeed codes
def rows(prefix, fmt):
    idx = open(prefix + ".idx", "rb").read()
    n = struct.unpack("<Q", idx[18:26])[0]
    sizes = struct.unpack("<%di" % n, idx[34:34 + 4 * n])
    data = open(prefix + ".bin", "rb").read()
    fmt = fmt or DT[idx[17]]
    values = struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data)
    res, at = [], 0
    for s in sizes:
        res.append(values[at:at + s]); at += s
    return res
docs = rows(tok, "H")  # generated with megatron codes: uint16
sums = [r[0] for r in rows(out + "/tsum/tsum_sample_to_metric", None)]
assert sums == [sum(d) for d in docs], "token_sum differs"
hist = [0] * 10
for d in docs:
    for t in d:
        hist[t * 10 // 1000] += 1
got = list(rows(out + "/hist/hist_metric_value", None)[0])
assert got == hist, "token_histogram %s != %s" % (got, hist)
PY
done

"$DSANALYZE" metrics --plugin "$example" > "$work/list.txt" || fail "metrics --plugin: exit $?"
grep -q "token_sum .*single_value_per_sample" "$work/list.txt" || fail "token_sum not listed"
grep -q "token_histogram .*accumulate_value_over_samples" "$work/list.txt" \
  || fail "token_histogram not listed"
grep -q "vocab_rarity" "$work/list.txt" || fail "built-ins not listed"

expect_error() {  # expect_error NAME METRICS_JSON MESSAGE
  config "$1" 2 "$2"
  set +e
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/$1.json" --quiet 2> "$work/$1.err"
  local code=$?
  set -e
  [[ $code -eq 2 ]] || fail "$1: exit code $code, expected 2: $(cat "$work/$1.err")"
  grep -qF -- "$3" "$work/$1.err" || fail "$1: expected \"$3\" in: $(cat "$work/$1.err")"
  [[ $(grep -c "dsanalyze: error:" "$work/$1.err") -eq 1 ]] || fail "$1: not exactly one error line"
}

expect_error missing '[{"name": "m", "plugin": "'"$work/nope.so"'", "metric": "x"}]' \
  'dsanalyze: error: config: metrics[0].plugin: plugin "'"$work/nope.so"'": no such file'
expect_error not_exported '[{"name": "m", "plugin": "'"$example"'", "metric": "x"}]' \
  'config: metrics[0].metric: plugin "'"$example"'": does not export a metric "x"; it exports: token_sum, token_histogram'
expect_error compute '[{"name": "m", "plugin": "'"$faulty"'", "metric": "fails"}]' \
  '(plugin metric "fails" of '"$faulty"'): deliberate failure at sample 5 (at samples'
expect_error count '[{"name": "m", "plugin": "'"$faulty"'", "metric": "short"}]' \
  'values where 100 were expected'
set +e
"$DSANALYZE" metrics --plugin "$work/nope.so" 2> "$work/list.err"
code=$?
set -e
[[ $code -eq 2 ]] || fail "metrics --plugin missing: exit $code"
grep -qF 'dsanalyze: error: --plugin: plugin "'"$work/nope.so"'": no such file' "$work/list.err" \
  || fail "metrics --plugin missing: $(cat "$work/list.err")"
echo "plugin_run on $NP ranks: all checks passed"
