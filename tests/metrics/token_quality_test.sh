#!/usr/bin/env bash
# unique_token_ratio, token_entropy and repeated_ngram_ratio end to end, on
# two generated documents datasets (uint16 and int32 tokens) with ignored ids
# (some uint16 documents are left without tokens): a run under mpiexec -n $NP
# with map.threads 1 and 2 must give the same bytes as a one-rank, one-thread
# run; every output passes `dsanalyze verify`; and sample_to_metric equals an
# independent Python computation from the .idx/.bin files.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# uint16 tokens (the dense count), and int32 tokens (sorted counts, hashed 3-grams).
"$DSANALYZE" generate "$work/tok16" --documents 600 --vocab-size 300 --min-length 1 \
  --max-length 120 --seed 1 > /dev/null
"$DSANALYZE" generate "$work/tok32" --documents 300 --vocab-size 70000 --min-length 1 \
  --max-length 200 --seed 2 --zipf 1.6 > /dev/null
metrics='[{"name": "u", "metric": "unique_token_ratio"},
  {"name": "e", "metric": "token_entropy", "params": {"scale": 100000}},
  {"name": "len", "metric": "seqlen"},
  {"name": "r", "metric": "repeated_ngram_ratio"},
  {"name": "r1", "metric": "repeated_ngram_ratio", "params": {"n": 1, "scale": 7}},
  {"name": "r5", "metric": "repeated_ngram_ratio", "params": {"n": 5, "scale": 1}}]'
names="u e len r r1 r5"

run() {  # run TOKENS NAME RANKS THREADS
  local name="$1_$2"
  printf '%s\n' '{"dataset": {"type": "documents", "prefixes": ["'"$work/$1"'"],
      "ignore_token_ids": [1, 0]},
    "metrics": '"$metrics"', "output": {"path": "'"$work/$name"'"},
    "map": {"threads": '"$4"', "batch_size": 7}}' > "$work/$name.json"
  "$MPIEXEC" -n "$3" "$DSANALYZE" --config "$work/$name.json" --quiet \
    || fail "$name: dsanalyze exited $?"
  "$DSANALYZE" verify "$work/$name" > /dev/null || fail "$name: dsanalyze verify found a problem"
}

for tokens in tok16 tok32; do
  run "$tokens" ref 1 1
  for threads in 1 2; do
    run "$tokens" "np${NP}_t${threads}" "$NP" "$threads"
    for m in $names; do
      for f in $(cd "$work/${tokens}_ref/$m" && ls); do
        cmp -s "$work/${tokens}_ref/$m/$f" "$work/${tokens}_np${NP}_t${threads}/$m/$f" \
          || fail "$tokens, $NP ranks, $threads threads: $m/$f differs from 1 rank"
      done
    done
  done
  python3 - "$work/$tokens" "$work/${tokens}_ref" <<'PY'
import math, struct, sys
from collections import Counter
from fractions import Fraction

DEEPSPEED = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}

def read_rows(prefix, fmt=None):
    """(dtype code, rows) of PREFIX.idx/.bin (docs/format.md §1); the elements have
    struct format fmt, or by default the one of the code in the deepspeed table."""
    idx = open(prefix + ".idx", "rb").read()
    fmt = fmt or DEEPSPEED[idx[17]]
    rows = struct.unpack("<Q", idx[18:26])[0]
    sizes = struct.unpack(f"<{rows}i", idx[34:34 + 4 * rows])
    data = open(prefix + ".bin", "rb").read()
    values = struct.unpack(f"<{len(data) // struct.calcsize(fmt)}{fmt}", data)
    out, at = [], 0
    for s in sizes:
        out.append(list(values[at:at + s]))
        at += s
    return idx[17], out

tok_prefix, out = sys.argv[1], sys.argv[2]
MEGATRON = {8: "H", 4: "i"}  # generate writes uint16 or int32
with open(tok_prefix + ".idx", "rb") as f:
    code = f.read(18)[17]
assert code == {"tok16": 8, "tok32": 4}[tok_prefix.rsplit("/", 1)[1]], f"dtype code {code}"
docs = read_rows(tok_prefix, MEGATRON[code])[1]
docs = [[t for t in d if t not in (0, 1)] for d in docs]  # ignore_token_ids [1, 0]
if code == 8:
    assert any(not d for d in docs), "no document is left without tokens; pick another seed"

# round() of a Fraction is exact and rounds half to even.
def unique(t, scale):
    return round(Fraction(len(set(t)) * scale, len(t))) if t else 0

def repeated(t, n, scale):
    if len(t) < n:
        return 0
    grams = Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1))
    return round(Fraction(sum(c for c in grams.values() if c > 1) * scale, len(t) - n + 1))

def entropy(t, scale):  # (rounded value, H·scale) with H = -Σ p log2 p
    if not t:
        return 0, 0.0
    h = math.fsum(-c / len(t) * math.log2(c / len(t)) for c in Counter(t).values())
    return round(h * scale), h * scale

# len, not a token-quality metric, sits between them in the config: the map
# computes the others in one shared pass, each into its own values.
expected = {"u": lambda t: unique(t, 1000), "len": len, "r": lambda t: repeated(t, 3, 1000),
            "r1": lambda t: repeated(t, 1, 7), "r5": lambda t: repeated(t, 5, 1)}

def metric(name):
    rows = read_rows(f"{out}/{name}/{name}_sample_to_metric")[1]
    assert all(len(r) == 1 for r in rows), f"{name}: a sample_to_metric row is not one value"
    assert len(rows) == len(docs), f"{name}: {len(rows)} rows for {len(docs)} samples"
    return [r[0] for r in rows]

for name, f in expected.items():
    for i, (got, t) in enumerate(zip(metric(name), docs)):
        assert got == f(t), f"{name}: sample {i}: {got}, expected {f(t)}"
ties = 0
for i, (got, t) in enumerate(zip(metric("e"), docs)):
    want, exact = entropy(t, 100000)
    # C++ sums in another order: only within 1e-6 of a tie may it round the other way.
    if abs(exact - math.floor(exact) - 0.5) < 1e-6:
        ties += 1
        assert abs(got - exact) <= 0.5 + 1e-6, f"e: sample {i}: {got}, expected {exact}"
    else:
        assert got == want, f"e: sample {i}: {got}, expected {want}"
assert any(metric("r")), "no sample repeats a 3-gram; pick another seed"
print(f"{tok_prefix}: sample_to_metric of {len(docs)} samples as computed in Python "
      f"({ties} entropy ties)")
PY
done
echo "token_quality on $NP ranks: all checks passed"
