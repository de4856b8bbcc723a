#!/usr/bin/env bash
# dsanalyze merge end to end: a generated documents dataset analysed whole and
# as uneven dataset.sample_range shards (one of a single sample) under
# mpiexec -n $NP; the merged shards must equal the whole run in every metric
# file, byte for byte, pass `dsanalyze verify`, and not depend on the order
# the inputs are given in. Then the same with sample_indices.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
"$DSANALYZE" generate data/t --documents 700 --vocab-size 400 --min-length 1 --max-length 90 \
  --seed 5 > /dev/null
python3 - <<'PY'
import struct
n = 700
ids = [(i * 389 + 11) % n + 1000 for i in range(n)]  # a permutation, shifted
header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (118 - len(header)) + "\n"
with open("ids.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%dq" % n, *ids))
PY

# config NAME OUT [RANGE] [IDS]
config() {
  local range="" ids=""
  [[ -n "${3:-}" ]] && range=", \"sample_range\": $3"
  [[ -n "${4:-}" ]] && ids=", \"sample_indices\": \"$4\""
  cat > "$1.json" <<JSON
{"dataset": {"type": "documents", "prefixes": ["data/t"]$range$ids},
 "metrics": [{"name": "seqlen", "metric": "seqlen"},
             {"name": "vocab", "metric": "total_vocab_freq", "params": {"vocab_size": 400}},
             {"name": "entropy", "metric": "token_entropy"}],
 "output": {"path": "$2"}, "map": {"threads": 2, "batch_size": 32}}
JSON
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$1.json" --quiet || fail "$1: run exited $?"
}

# same_metric_files A B: every metric file of A is in B with the same bytes.
same_metric_files() {
  local n=0
  for f in "$1"/*/*.bin "$1"/*/*.idx; do
    cmp -s "$f" "$2/${f#"$1"/}" || fail "$2/${f#"$1"/} differs from $f"
    n=$((n + 1))
  done
  [[ $n -eq 18 ]] || fail "$1: $n metric files, expected 18"
}

check() {  # check TAG [IDS]
  local tag=$1 ids=${2:-}
  config "$tag-whole" "out/$tag-whole" "" "$ids"
  config "$tag-a" "out/$tag-a" "[0, 200]" "$ids"
  config "$tag-b" "out/$tag-b" "[200, 201]" "$ids"
  config "$tag-c" "out/$tag-c" "[201, 700]" "$ids"
  "$DSANALYZE" merge "out/$tag-a" "out/$tag-b" "out/$tag-c" --out "out/$tag-merged" > /dev/null \
    || fail "$tag: merge exited $?"
  same_metric_files "out/$tag-whole" "out/$tag-merged"
  "$DSANALYZE" verify "out/$tag-merged" > /dev/null || fail "$tag: verify found a problem"
  # Under the launcher only its rank 0 merges.
  "$MPIEXEC" -n "$NP" "$DSANALYZE" merge "out/$tag-c" "out/$tag-a" "out/$tag-b" \
    --out "out/$tag-reordered" > /dev/null || fail "$tag: merge (reordered) exited $?"
  same_metric_files "out/$tag-merged" "out/$tag-reordered"
  # A merge of a merge: the two first shards, then the third.
  "$DSANALYZE" merge "out/$tag-b" "out/$tag-a" --out "out/$tag-ab" > /dev/null \
    || fail "$tag: merge of two exited $?"
  "$DSANALYZE" merge "out/$tag-ab" "out/$tag-c" --out "out/$tag-abc" > /dev/null \
    || fail "$tag: merge of a merge exited $?"
  same_metric_files "out/$tag-whole" "out/$tag-abc"
}

check plain
check ids ids.npy

# synthetic_mod (value + sum), modulus 1000: the first part's values 7..206 and
# ids 0..199 fit uint8, the union's need uint16, so both dtypes are refitted.
synth() {
  cat > "$1.json" <<JSON
{"dataset": {"type": "synthetic_mod", "num_samples": 3000, "modulus": 1000 $2},
 "metrics": [{"name": "mod", "metric": "value"}, {"name": "total", "metric": "sum"}],
 "output": {"path": "out/$1"}}
JSON
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$1.json" --quiet || fail "$1: run exited $?"
}
synth mod-whole ""
synth mod-a ', "sample_range": [0, 200]'
synth mod-b ', "sample_range": [200, 3000]'
"$DSANALYZE" merge out/mod-b out/mod-a --out out/mod-merged > /dev/null || fail "mod: merge"
code() { od -An -tu1 -j17 -N1 "$1" | tr -d ' '; }  # the .idx dtype code
for kind in sample_to_metric index_to_sample; do
  [[ $(code out/mod-a/mod/mod_$kind.idx) != $(code out/mod-whole/mod/mod_$kind.idx) ]] \
    || fail "mod: the part's $kind dtype should differ from the whole run's"
done
for f in out/mod-whole/*/*.bin out/mod-whole/*/*.idx; do
  cmp -s "$f" "out/mod-merged/${f#out/mod-whole/}" || fail "mod: ${f#out/mod-whole/} differs"
done

# The fixes that make whole-dataset metrics mergeable: vocab_rarity and
# seqlen_vocab_rarity given the whole dataset's counts (a total_vocab_freq
# counted in parts and merged) and seq_length, a score given scale. Merged, the
# parts equal the whole run, which counts the tokens itself, and the score
# keeps its summary.json block (with the NaN scores of both parts counted).
python3 - <<'PY'
import struct
n = 700
header = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (118 - len(header)) + "\n"
with open("scores.npy", "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%dd" % n, *[float("nan") if i % 50 == 7 else (i * 37 % 101) / 7 - 3
                                      for i in range(n)]))
PY
# fixed NAME METRICS [RANGE]
fixed() {
  local range=""
  [[ -n "${3:-}" ]] && range=", \"sample_range\": $3"
  cat > "$1.json" <<JSON
{"dataset": {"type": "documents", "prefixes": ["data/t"]$range},
 "metrics": [$2], "output": {"path": "out/$1"}}
JSON
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$1.json" --log-level warn --progress never \
    2> "$1.err" || fail "$1: run exited $?"
}
fixed counts-a '{"name": "vocab", "metric": "total_vocab_freq", "params": {"vocab_size": 400}}' "[0, 300]"
fixed counts-b '{"name": "vocab", "metric": "total_vocab_freq", "params": {"vocab_size": 400}}' "[300, 700]"
"$DSANALYZE" merge out/counts-a out/counts-b --out out/counts > /dev/null || fail "counts: merge"
counts=out/counts/vocab/vocab_metric_value
score='{"name": "quality", "metric": "score", "params": {"file": "scores.npy", "per": "sample", "scale": 100, "nan": -1}}'
fixed fix-whole "{\"name\": \"rarity\", \"metric\": \"vocab_rarity\", \"params\": {\"vocab_size\": 400}},
  {\"name\": \"slr\", \"metric\": \"seqlen_vocab_rarity\", \"params\": {\"vocab_size\": 400, \"seq_length\": 90}},
  $score"
part_metrics="{\"name\": \"rarity\", \"metric\": \"vocab_rarity\", \"params\": {\"vocab_size\": 400, \"total_vocab_freq\": \"$counts\"}},
  {\"name\": \"slr\", \"metric\": \"seqlen_vocab_rarity\", \"params\": {\"vocab_size\": 400, \"seq_length\": 90, \"total_vocab_freq\": \"$counts\"}},
  $score"
fixed fix-a "$part_metrics" "[0, 300]"
fixed fix-b "$part_metrics" "[300, 700]"
! grep -q "cannot be merged" fix-a.err fix-b.err fix-whole.err || fail "a mergeable part warned"
# --timings and --progress, also before the subcommand, per stage.
"$DSANALYZE" --timings merge out/fix-b out/fix-a --out out/fix-merged --progress always \
  > /dev/null 2> merge.err || fail "fix: merge exited $?"
for f in out/fix-whole/*/*.bin out/fix-whole/*/*.idx; do
  cmp -s "$f" "out/fix-merged/${f#out/fix-whole/}" || fail "fix: ${f#out/fix-whole/} differs"
done
python3 - <<'PY' || fail "the merged score block differs from the whole run's"
import json
whole = json.load(open("out/fix-whole/summary.json"))["metrics"]["quality"]
merged = json.load(open("out/fix-merged/summary.json"))["metrics"]["quality"]
assert "score" in whole and merged.get("score") == whole["score"], (whole, merged)
assert whole["score"]["nan"] == {"value": -1, "samples": 14}, whole["score"]
assert "mergeable" not in whole, whole
PY
for stage in open "rarity: merge" "slr: merge" "quality: merge" report commit; do
  grep -qE "^$stage +[0-9]+\.[0-9]{3}$" merge.err || fail "--timings: no '$stage' row: $(cat merge.err)"
  [[ $(grep -cF "[progress] $stage " merge.err) == 1 ]] ||
    fail "--progress always: not one line for '$stage': $(cat merge.err)"
done
"$DSANALYZE" --progress always merge out/fix-a out/fix-b --out out/fix-merged2 > /dev/null \
  2> merge2.err || fail "fix: merge (--progress first) exited $?"
grep -qF "[progress] rarity: merge " merge2.err || fail "--progress before merge was ignored"
grep -q "^stage " merge2.err && fail "--timings printed without being asked"
# On a terminal: one live line per stage (`script` gives it a pseudo-terminal).
if command -v script > /dev/null; then
  script -qfec "$DSANALYZE merge out/fix-a out/fix-b --out out/fix-tty" tty.txt > /dev/null ||
    fail "merge on a terminal: exit $?"
  grep -qF $'\r'"rarity: merge " tty.txt || fail "no live progress line on a terminal"
fi
echo "merge on $NP ranks: merged shards equal the whole run (default ids and sample_indices)"
