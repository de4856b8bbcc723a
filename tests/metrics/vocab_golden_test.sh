#!/usr/bin/env bash
# The golden token set end to end under mpiexec -n $NP, threads 1 and 2:
# - seqlen, total_vocab_freq and vocab_rarity in one run: every .bin equal to
#   DeepSpeed's da/ and dda/ files, every .idx equal to dda/;
# - vocab_rarity alone (total_vocab_freq computed by a dependency pass) and
#   vocab_rarity with total_vocab_freq read from the golden metric_value file:
#   the same vocab_rarity bytes;
# - seqlen_vocab_rarity alone equals seqlen * C + vocab_rarity with C from
#   Python's math.log, as DeepSpeed's example computes it.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}" "${GOLDEN:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

golden="$GOLDEN/tokens"
dataset='{"type": "documents", "prefixes": ["'"$golden/data/tok_d20000_v50000_s1234"'"],
          "dtype_codes": "deepspeed"}'

run() {  # run NAME THREADS METRICS_JSON
  printf '%s\n' '{"dataset": '"$dataset"', "metrics": '"$3"',
    "output": {"path": "'"$work/$1"'"}, "map": {"threads": '"$2"', "batch_size": 1000}}' \
    > "$work/$1.json"
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/$1.json" --quiet \
    || fail "$1: dsanalyze exited $?"
}

same_as_golden() {  # same_as_golden RUN METRIC
  local files
  files=$(cd "$golden/dda" && find "$2" -type f | sort)
  [[ -n "$files" ]] || fail "no golden files for $2"
  for f in $files; do
    cmp -s "$work/$1/$f" "$golden/dda/$f" || fail "$1: $f differs from dda golden"
    case "$f" in *.bin) cmp -s "$work/$1/$f" "$golden/da/$f" || fail "$1: $f differs from da";; esac
  done
}

for threads in 1 2; do
  name="all_t$threads"
  run "$name" "$threads" '[{"name": "seqlen", "metric": "seqlen"},
    {"name": "total_vocab_freq", "metric": "total_vocab_freq", "params": {"vocab_size": 50000}},
    {"name": "vocab_rarity", "metric": "vocab_rarity", "params": {"vocab_size": 50000}}]'
  for m in seqlen total_vocab_freq vocab_rarity; do same_as_golden "$name" "$m"; done

  name="alone_t$threads"
  run "$name" "$threads" '[{"name": "vocab_rarity", "metric": "vocab_rarity",
    "params": {"vocab_size": 50000}}]'
  same_as_golden "$name" vocab_rarity
  [[ ! -e "$work/$name/total_vocab_freq" ]] || fail "$name: the dependency was written out"

  name="from_file_t$threads"
  run "$name" "$threads" '[{"name": "vocab_rarity", "metric": "vocab_rarity",
    "params": {"vocab_size": 50000, "total_vocab_freq":
               "'"$golden/dda/total_vocab_freq/total_vocab_freq_metric_value"'"}}]'
  same_as_golden "$name" vocab_rarity
done

run svr 2 '[{"name": "svr", "metric": "seqlen_vocab_rarity", "params": {"vocab_size": 50000}}]'
python3 - "$work/svr/svr/svr_sample_to_metric" "$golden/dda" <<'PY'
import math, struct, sys
out, golden = sys.argv[1], sys.argv[2]
DT = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}  # deepspeed codes
def scalars(prefix):
    idx = open(prefix + ".idx", "rb").read()
    data = open(prefix + ".bin", "rb").read()
    fmt = DT[idx[17]]
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))
freq = [f or 1 for f in scalars(golden + "/total_vocab_freq/total_vocab_freq_metric_value")]
total = sum(freq)
max_rarity = max(-math.log(f / total) for f in freq)
seqlen = scalars(golden + "/seqlen/seqlen_sample_to_metric")
rarity = scalars(golden + "/vocab_rarity/vocab_rarity_sample_to_metric")
coeff = 10 ** (math.ceil(math.log(max(seqlen) * max_rarity, 10)) + 1)
got = scalars(out)
want = [s * coeff + r for s, r in zip(seqlen, rarity)]
assert got == want, "seqlen_vocab_rarity differs from seqlen * %d + vocab_rarity" % coeff
PY
echo "vocab_golden on $NP ranks: all checks passed"
