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

# run NAME RANGE [DATASET_EXTRA] [METRICS] [OUTPUT_EXTRA]: warnings in NAME.err.
run() {
  local metrics=${4:-'{"name": "seqlen", "metric": "seqlen"}, {"name": "vocab", "metric": "total_vocab_freq", "params": {"vocab_size": 50}}'}
  cat > "$1.json" <<JSON
{"dataset": {"type": "documents", "prefixes": ["data/t"], "sample_range": $2 ${3:-}},
 "metrics": [$metrics], "output": {"path": "out/$1" ${5:-}}}
JSON
  "$DSANALYZE" --config "$1.json" --log-level warn --progress never 2> "$1.err" ||
    fail "$1: run exited $?"
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
# Parts whose metric_value row is empty: DeepSpeed's reduce fails on one
# (max() of an empty sequence), so no analysis holds one: merge refuses it
# rather than write one (output/metric_files.h rule 6).
cp -r out/a empty_a
cp -r out/b empty_b
python3 - <<'PY'
import struct
for part in ("empty_a", "empty_b"):  # MMIDIDX, version 1, uint8, 1 row, doc_idx [0, 1]
    prefix = part + "/vocab/vocab_metric_value"
    with open(prefix + ".idx", "wb") as f:
        f.write(b"MMIDIDX\x00\x00" + struct.pack("<QBQQ", 1, 1, 1, 2))
        f.write(struct.pack("<iqqq", 0, 0, 0, 1))
    open(prefix + ".bin", "wb").close()
PY
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

# Parts whose metric values depend on the part's other samples (not mergeable).
rarity='{"name": "rarity", "metric": "vocab_rarity", "params": {"vocab_size": 50}}'
run rarity_a "[0, 60]" "" "$rarity"
run rarity_b "[60, 120]" "" "$rarity"
python3 - <<'PY'
import struct
n = 120  # a .npy of float64 scores, one per sample
header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (118 - len(header)) + "\n"
with open("scores.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%dd" % n, *[(i * 37 % 101) / 7 for i in range(n)]))
PY
binned='{"name": "quality", "metric": "score", "params": {"file": "scores.npy", "per": "sample", "bins": 4}}'
run binned_a "[0, 60]" "" "$binned"
run binned_b "[60, 120]" "" "$binned"
cat > counts.json <<JSON
{"dataset": {"type": "documents", "prefixes": ["data/t"]},
 "metrics": [{"name": "vocab", "metric": "total_vocab_freq", "params": {"vocab_size": 50}}],
 "output": {"path": "out/counts"}}
JSON
"$DSANALYZE" --config counts.json --quiet || fail "counts: run exited $?"
seqlen_rarity='{"name": "slr", "metric": "seqlen_vocab_rarity", "params": {"vocab_size": 50, "total_vocab_freq": "out/counts/vocab/vocab_metric_value"}}'
run slr_a "[0, 60]" "" "$seqlen_rarity"
run slr_b "[60, 120]" "" "$seqlen_rarity"
# The part says so: one warning line, and summary.json's entry.
[[ $(cat rarity_a.err) == *"[warning] metric rarity: this part's values cannot be merged"*"params.total_vocab_freq"* ]] ||
  fail "rarity_a: no warning line: $(cat rarity_a.err)"
[[ $(grep -c "cannot be merged" rarity_a.err) -eq 1 ]] ||
  fail "rarity_a: not one warning line: $(cat rarity_a.err)"
! grep -q "cannot be merged" a.err || fail "a: a mergeable part warned: $(cat a.err)"
python3 - <<'PY' || fail "summary.json does not record mergeable: false"
import json
m = json.load(open("out/binned_a/summary.json"))["metrics"]["quality"]
assert m["mergeable"] is False and "params.scale" in m["not_mergeable"], m
assert "mergeable" not in json.load(open("out/a/summary.json"))["metrics"]["seqlen"]
PY
# A part written before summary.json said "mergeable": judged from its config.
cp -r out/rarity_a old_rarity_a
python3 - <<'PY'
import json
path = "old_rarity_a/summary.json"
s = json.load(open(path))
for m in s["metrics"].values():
    m.pop("mergeable", None), m.pop("not_mergeable", None)
json.dump(s, open(path, "w"), indent=2)
PY
# Folders --out must not replace: an input itself, one inside it, or through a link.
mkdir clash
echo "not a metric" > clash/seqlen
ln -s out/a alias
snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
a_before=$(snapshot out/a)
clash_before=$(snapshot clash)

n=0
# refused NAME OUT SUBSTRING COMMAND...: exit 2, one line containing SUBSTRING.
refused() {
  local name=$1 out=$2 want=$3
  shift 3
  local rc=0
  "$@" --out "$out" > stdout 2> stderr || rc=$?
  [[ $rc -eq 2 ]] || fail "$name: exit $rc, expected 2 ($(cat stderr))"
  [[ $(wc -l < stderr) -eq 1 ]] || fail "$name: stderr is not one line: $(cat stderr)"
  grep -qF -- "$want" stderr || fail "$name: stderr lacks '$want': $(cat stderr)"
  n=$((n + 1))
}
# expect NAME SUBSTRING COMMAND...: refused, and nothing at --out merged/NAME.
expect() {
  refused "$1" "merged/$1" "${@:2}"
  [[ ! -e "merged/$1" ]] || fail "$1: something was written at --out"
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
expect empty_metric_value "merge: empty_a/vocab/vocab_metric_value: row 0: is empty (DeepSpeed's reduce never writes an empty metric_value)" \
  "$DSANALYZE" merge empty_a empty_b
# Refused after the output was staged: the folders it made are gone again.
expect bad_row "bad_row/seqlen/seqlen_sample_to_metric.idx: pointer of row 5 is 127 but the sizes before it give 5" \
  "$DSANALYZE" merge out/a bad_row
[[ ! -e merged ]] || fail "bad_row: the merge left $(find merged)"
expect not_mergeable "merge: out/rarity_a: metric rarity (vocab_rarity) cannot be merged: without params.total_vocab_freq" \
  "$DSANALYZE" merge out/rarity_a out/rarity_b
expect not_mergeable_old "merge: old_rarity_a: metric rarity (vocab_rarity) cannot be merged" \
  "$DSANALYZE" merge old_rarity_a out/rarity_b
expect score_bins "metric quality (score) cannot be merged: its params.bins are equal-count bins" \
  "$DSANALYZE" merge out/binned_b out/binned_a
expect no_seq_length "metric slr (seqlen_vocab_rarity) cannot be merged: without params.seq_length" \
  "$DSANALYZE" merge out/slr_a out/slr_b
refused out_is_input out/a "--out out/a: is the input out/a, which this command reads and never writes into" \
  "$DSANALYZE" merge out/a out/b
refused out_in_input out/b/sub "--out out/b/sub: is inside the input out/b" \
  "$DSANALYZE" merge out/a out/b
[[ ! -e out/b/sub ]] || fail "out_in_input: the merge wrote out/b/sub"
refused out_is_link alias "--out alias: is the input out/a" "$DSANALYZE" merge out/a out/b
[[ $(snapshot out/a) == "$a_before" ]] || fail "a merge into an input changed it"
refused clash clash "--out clash: clash/seqlen exists and is not a metric folder" \
  "$DSANALYZE" merge out/a out/b
[[ $(snapshot clash) == "$clash_before" && -z $(find . -maxdepth 1 -name ".clash.dsanalyze*") ]] ||
  fail "clash: the merge changed its --out"
echo "merge bad input: $n cases refused as expected"
