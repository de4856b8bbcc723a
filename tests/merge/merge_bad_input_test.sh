#!/usr/bin/env bash
# dsanalyze merge refuses inputs it cannot merge: each case must exit 2 with
# one stderr line naming the problem, and leave nothing at --out.
set -euo pipefail
: "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
"$DSANALYZE" generate data/t --documents 120 --vocab-size 50 --min-length 1 --max-length 20 \
  --seed 9 > /dev/null

# run NAME RANGE [DATASET_EXTRA] [METRICS] [OUTPUT_EXTRA]
run() {
  local metrics=${4:-'{"name": "seqlen", "metric": "seqlen"}, {"name": "vocab", "metric": "total_vocab_freq", "params": {"vocab_size": 50}}'}
  cat > "$1.json" <<JSON
{"dataset": {"type": "documents", "prefixes": ["data/t"], "sample_range": $2 ${3:-}},
 "metrics": [$metrics], "output": {"path": "out/$1" ${5:-}}}
JSON
  "$DSANALYZE" --config "$1.json" --quiet || fail "$1: run exited $?"
}
run a "[0, 60]"
run b "[60, 120]"
run overlap "[50, 120]"
run gap "[70, 120]"
run other_metrics "[60, 120]" "" '{"name": "seqlen", "metric": "seqlen"}'
run other_table "[60, 120]" "" "" ', "dtype_codes": "deepspeed-legacy"'
run other_dataset "[60, 120]" ', "ignore_token_ids": [0]'
cp -r out/b broken
rm broken/seqlen/seqlen_index_to_sample.idx
# sample_to_metric's rows are checked while the merge writes: row 5's pointer
# (60 rows: sizes at 34, pointers at 34 + 4 * 60) made 127.
cp -r out/b bad_row
printf '\x7f' | dd of=bad_row/seqlen/seqlen_sample_to_metric.idx bs=1 seek=$((34 + 240 + 8 * 5)) \
  conv=notrunc status=none
# Two parts whose sums fit int64 but whose merged sum does not.
for part in 0 1; do
  cat > "big$part.json" <<JSON
{"dataset": {"type": "synthetic_mod", "num_samples": 2, "modulus": 9000000000000000000,
             "offset": 8900000000000000000, "sample_range": [$part, $((part + 1))]},
 "metrics": [{"name": "total", "metric": "sum"}], "output": {"path": "out/big$part"}}
JSON
  "$DSANALYZE" --config "big$part.json" --quiet || fail "big$part: run exited $?"
done
mkdir not_analysis
echo '{}' > not_analysis/summary.json

n=0
# expect NAME SUBSTRING COMMAND...: exit 2, one line containing SUBSTRING, no out/NAME.
expect() {
  local name=$1 want=$2
  shift 2
  local rc=0
  "$@" --out "merged/$name" > stdout 2> stderr || rc=$?
  [[ $rc -eq 2 ]] || fail "$name: exit $rc, expected 2 ($(cat stderr))"
  [[ $(wc -l < stderr) -eq 1 ]] || fail "$name: stderr is not one line: $(cat stderr)"
  grep -qF -- "$want" stderr || fail "$name: stderr lacks '$want': $(cat stderr)"
  [[ ! -e "merged/$name" ]] || fail "$name: something was written at --out"
  n=$((n + 1))
}
expect overlap "overlap: both hold sample id 50" "$DSANALYZE" merge out/a out/overlap
expect gap "no input holds positions [60, 70)" "$DSANALYZE" merge out/a out/gap
expect metrics "have different metrics (seqlen, vocab vs seqlen)" \
  "$DSANALYZE" merge out/a out/other_metrics
expect table "use different dtype code tables" "$DSANALYZE" merge out/a out/other_table
expect dataset "analyse different datasets" "$DSANALYZE" merge out/a out/other_dataset
expect empty_dir "not an analysis" "$DSANALYZE" merge out/a data
expect no_summary_metrics "lists no metric" "$DSANALYZE" merge out/a not_analysis
expect missing "out/nowhere" "$DSANALYZE" merge out/a out/nowhere
expect one_input "at least two analyses" "$DSANALYZE" merge out/a
expect missing_file "seqlen_index_to_sample" "$DSANALYZE" merge out/a broken
expect overflow "merge: metric total: the sum of element 0 overflows int64" \
  "$DSANALYZE" merge out/big0 out/big1
# Refused after the output was staged: the folders it made are gone again.
expect bad_row "bad_row/seqlen/seqlen_sample_to_metric.idx: pointer of row 5 is 127 but the sizes before it give 5" \
  "$DSANALYZE" merge out/a bad_row
[[ ! -e merged ]] || fail "bad_row: the merge left $(find merged)"
echo "merge bad input: $n cases refused as expected"
