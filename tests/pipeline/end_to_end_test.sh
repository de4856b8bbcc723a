#!/usr/bin/env bash
# End-to-end runs of dsanalyze under mpiexec -n $NP, for threads 1, 2 and 3:
# - the seed benchmark (N=100000) must equal DeepSpeed's golden outputs: every
#   .bin byte-for-byte with da/ and dda/, every .idx with dda/ — hence every
#   rank/thread combination gives identical bytes;
# - the same with a 64-byte chunk limit (forces many chunks per stream);
# - skew: all samples one value gives one index_to_sample row holding 0..N-1;
# - N smaller than the rank count, and N = 1.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}" "${GOLDEN:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

run() {  # run NAME JSON
  printf '%s\n' "$2" > "$work/$1.json"
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/$1.json" --quiet \
    || fail "$1: dsanalyze exited $?"
}

golden="$GOLDEN/seedmod-100k"
for threads in 1 2 3; do
  for chunk in 4194304 64; do
    name="seed_t${threads}_c${chunk}"
    run "$name" '{"dataset": {"type": "synthetic_mod", "num_samples": 100000},
      "metrics": [{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}],
      "output": {"path": "'"$work/$name"'", "chunk_bytes": '"$chunk"'},
      "map": {"threads": '"$threads"', "batch_size": 1024}}'
    for f in $(cd "$golden/dda" && find . -type f | sort); do
      cmp -s "$work/$name/$f" "$golden/dda/$f" || fail "$name: $f differs from dda golden"
      case "$f" in *.bin) cmp -s "$work/$name/$f" "$golden/da/$f" || fail "$name: $f differs from da";; esac
    done
    [[ -z "$(find "$work" -maxdepth 1 -name ".$name.dsanalyze*")" ]] || fail "$name: staging or lock left behind"
  done
done

# Skew: modulus 1 makes every value 0.
run skew '{"dataset": {"type": "synthetic_mod", "num_samples": 100000, "modulus": 1},
  "metrics": [{"name": "v", "metric": "value"}], "output": {"path": "'"$work/skew"'"}}'
python3 - "$work/skew/v" <<'PY'
import struct, sys
d = sys.argv[1]
idx = open(d + "/v_index_to_sample.idx", "rb").read()
code, rows = idx[17], struct.unpack("<Q", idx[18:26])[0]
assert rows == 1, f"skew: {rows} index rows, expected 1"
assert code == 7, f"skew: sample dtype code {code}, expected 7 (uint32)"
ids = struct.unpack("<100000I", open(d + "/v_index_to_sample.bin", "rb").read())
assert list(ids) == list(range(100000)), "skew: ids are not 0..N-1"
m = open(d + "/v_index_to_metric.bin", "rb").read()
assert m == b"\x00", f"skew: index_to_metric {m!r}"
PY

# Fewer samples than ranks, and one sample: values (x+7)%10000.
for n in 1 3; do
  run "small$n" '{"dataset": {"type": "synthetic_mod", "num_samples": '"$n"'},
    "metrics": [{"name": "v", "metric": "value"}], "output": {"path": "'"$work/small$n"'"}}'
  python3 - "$work/small$n/v" "$n" <<'PY'
import struct, sys
d, n = sys.argv[1], int(sys.argv[2])
def rows(prefix):
    idx = open(prefix + ".idx", "rb").read()
    r = struct.unpack("<Q", idx[18:26])[0]
    sizes = struct.unpack(f"<{r}i", idx[34:34 + 4 * r])
    data = open(prefix + ".bin", "rb").read()  # uint8 for these tiny ranges
    out, off = [], 0
    for s in sizes:
        out.append(list(data[off:off + s])); off += s
    return out
assert rows(d + "/v_sample_to_metric") == [[x + 7] for x in range(n)]
assert rows(d + "/v_index_to_metric") == [[x + 7] for x in range(n)]
assert rows(d + "/v_index_to_sample") == [[x] for x in range(n)]
assert rows(d + "/v_index_to_sample_percentile_merged") == [[x] for x in range(n)]
PY
done
# sample_indices: sample i gets id (i*7919 % N)*3 + 5 (a permutation, spread out).
python3 - "$work/ids.npy" <<'PY'
import struct, sys
n = 100000
header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
data = struct.pack(f"<{n}q", *[(i * 7919 % n) * 3 + 5 for i in range(n)])
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)
PY
run ids '{"dataset": {"type": "synthetic_mod", "num_samples": 100000, "sample_indices": "'"$work/ids.npy"'"},
  "metrics": [{"name": "v", "metric": "value"}], "map": {"threads": 2},
  "output": {"path": "'"$work/ids"'"}}'
python3 - "$work/ids/v" <<'PY'
import struct, sys
d, n = sys.argv[1], 100000
ids = [(i * 7919 % n) * 3 + 5 for i in range(n)]
vals = [(i + 7) % 10000 for i in range(n)]
order = sorted(range(n), key=lambda i: (vals[i], ids[i]))
idx = open(d + "/v_index_to_sample.idx", "rb").read()
assert idx[17] == 7, f"sample dtype code {idx[17]}, expected 7 (uint32)"
got = struct.unpack(f"<{n}I", open(d + "/v_index_to_sample.bin", "rb").read())
assert list(got) == [ids[i] for i in order], "sample_indices: index_to_sample ids wrong"
s2m = struct.unpack(f"<{n}H", open(d + "/v_sample_to_metric.bin", "rb").read())
assert list(s2m) == vals, "sample_indices: sample_to_metric must stay in iteration order"
PY

echo "end_to_end on $NP ranks: all checks passed"
