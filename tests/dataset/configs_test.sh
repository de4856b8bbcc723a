#!/usr/bin/env bash
# Runs the example configs configs/documents.json, packed.json,
# megatron_gpt.json and megatron_blend.json exactly as written, from a scratch directory where their
# inputs are generated first (the repository holds no data):
#   data/demo_text_document, data/demo2_text_document   dsanalyze generate
#       (Megatron layout, uint16 = code 8 in the megatron table)
#   data/demo{,2}_text_document_train_indexmap_{doc,sample,shuffle}_idx.npy
#       dsanalyze generate --gpt-maps 128 (Megatron-style GPT index maps)
# Each config runs once as written on one rank; then under mpiexec -n $NP with
# 1, 2 and 3 map threads. Every .bin/.idx must be byte-identical to the first
# run's; the first output must pass `dsanalyze verify`, and its samples must
# be what the dataset type defines (checked through the seqlen values, below).
# These are the commands of docs/usage.md §8. Every configs/*.json must be run
# by this test or by metrics.configs (tokens_vocab, plugin) or the docs test
# (demo, score): a config no test runs fails here.
# Usage: configs_test.sh   (env: NP, MPIEXEC, DSANALYZE, SOURCE_DIR)
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}" "${SOURCE_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

for config in "$SOURCE_DIR"/configs/*.json; do
  case $(basename "$config" .json) in
    documents | packed | megatron_gpt | megatron_blend | tokens_vocab | plugin | demo | score) ;;
    *) fail "$config: no test runs this config" ;;
  esac
done

mkdir data
"$DSANALYZE" generate data/demo_text_document --documents 1500 --vocab-size 5000 \
  --min-length 1 --max-length 300 --seed 1 --gpt-maps 128 >/dev/null
"$DSANALYZE" generate data/demo2_text_document --documents 400 --vocab-size 5000 \
  --min-length 1 --max-length 50 --seed 2 --gpt-maps 128 >/dev/null

# The metric files of an output directory, relative to it, sorted.
metric_files() { (cd "$1" && find . -name '*.bin' -o -name '*.idx' | sort); }

for name in documents packed megatron_gpt megatron_blend; do
  config="$SOURCE_DIR/configs/$name.json"
  "$MPIEXEC" -n 1 "$DSANALYZE" --config "$config" --quiet || fail "$name: dsanalyze exited $?"
  reference="out/$name"
  [[ $(metric_files "$reference" | wc -l) -eq 8 ]] || fail "$name: expected 4 .bin/.idx pairs"
  "$DSANALYZE" verify "$reference" >/dev/null || fail "$name: dsanalyze verify found a problem"
  for threads in 1 2 3; do
    variant="$name.t$threads"
    python3 - "$config" "$variant.json" "out/$variant" "$threads" <<'PY'
import json, sys
config, path, out, threads = sys.argv[1:]
c = json.load(open(config))
c["output"]["path"] = out
c.setdefault("map", {})["threads"] = int(threads)
json.dump(c, open(path, "w"))
PY
    "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$variant.json" --quiet \
      || fail "$variant on $NP ranks: dsanalyze exited $?"
    [[ "$(metric_files "$reference")" == "$(metric_files "out/$variant")" ]] \
      || fail "$variant on $NP ranks: different files"
    for f in $(metric_files "$reference"); do
      cmp -s "$reference/$f" "out/$variant/$f" || fail "$variant on $NP ranks: $f differs"
    done
  done
done

# What the samples are: seqlen per sample, recomputed here from the inputs.
python3 - <<'PY'
import struct

def rows(prefix, megatron=False):
    """The rows of an MMapIndexedDataset as lists of ints. Outputs use the
    deepspeed dtype-code table; the inputs the megatron one (code 8 = uint16)."""
    idx = open(prefix + ".idx", "rb").read()
    code, n = idx[17], struct.unpack("<Q", idx[18:26])[0]
    table = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}
    if megatron:
        table = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 8: "H"}
    fmt = table[code]
    sizes = struct.unpack(f"<{n}i", idx[34:34 + 4 * n])
    data = open(prefix + ".bin", "rb").read()
    item = struct.calcsize(fmt)
    values = struct.unpack(f"<{len(data) // item}{fmt}", data)
    out, off = [], 0
    for s in sizes:
        out.append(list(values[off:off + s]))
        off += s
    return out

def npy(path):
    """A little-endian integer .npy as a flat list (the files generate --gpt-maps writes)."""
    b = open(path, "rb").read()
    hlen = struct.unpack("<H", b[8:10])[0]
    header = b[10:10 + hlen].decode()
    descr = header.split("'descr': '")[1][:3]
    fmt = {"<i4": "i", "<u4": "I", "<i8": "q"}[descr]
    data = b[10 + hlen:]
    return list(struct.unpack(f"<{len(data) // struct.calcsize(fmt)}{fmt}", data))

def sample_to_metric(name):
    return [r[0] for r in rows(f"out/{name}/seqlen/seqlen_sample_to_metric")]

docs = rows("data/demo_text_document", True) + rows("data/demo2_text_document", True)
assert sample_to_metric("documents") == [len(d) for d in docs], "documents: seqlen differs"

L = 128
stream = [t for d in docs for t in d]
packed = [stream[k * L:k * L + L + 1] for k in range((len(stream) - 1) // L)]
assert sample_to_metric("packed") == [sum(t != 0 for t in s) for s in packed], \
    "packed: seqlen differs"

one = rows("data/demo_text_document", True)
prefix = "data/demo_text_document_train_indexmap"
doc_idx, sample_idx, shuffle_idx = (npy(f"{prefix}_{m}_idx.npy") for m in ("doc", "sample", "shuffle"))
flat, start = [], []
for r in doc_idx:
    start.append(len(flat))
    flat.extend(one[r])
pos = [start[sample_idx[2 * k]] + sample_idx[2 * k + 1] for k in range(len(sample_idx) // 2)]
gpt = [flat[pos[j]:pos[j + 1] + 1] for j in shuffle_idx]
assert all(len(s) == L + 1 for s in gpt), "megatron_gpt: a sample is not seq_length + 1 tokens"
assert sample_to_metric("megatron_gpt") == [sum(t != 0 for t in s) for s in gpt], \
    "megatron_gpt: seqlen differs"
PY
echo "configs on $NP ranks x 1-3 threads: all checks passed"
