#!/usr/bin/env bash
# Benchmark suite (issue [Performance]): builds Release, generates inputs in a
# scratch directory (never in the repo), runs each case 3 times and reports the
# median wall time (including mpiexec), the CPU time (user + sys of the process
# and its children), the kernel's writeback (bytes Dirty + Writeback at the end
# of the run, pages written back during it, and the time of a `sync` right
# after it), per-stage times (rank 0 / slowest rank, from the run's
# summary.json) and peak RSS per rank, as a table and as JSON.
#
#   scripts/bench.sh [--quick] [--only A1,A2,B,C,Q,L,S,MB,D,J,O,BT,H] [--scratch DIR] [--json FILE]
#                    [--runs K] [--bin PATH]
#   scripts/bench.sh --only FLOOR,FLOORG,DISK,E,F,G,HE   # the 1e9-sample cases, ~40 GB of scratch
#   scripts/bench.sh --only MB,MC,PC,OC   # megatron_core (issue 45), ~3.5 GB of scratch
#
# --bin times another dsanalyze binary (e.g. a build of an older commit) on the
# same inputs, for before/after figures taken on the same machine (case J uses
# the dsanalyze_jsonl_bench beside it).
#
# Cases: A1/A2 seed benchmark N=10M (value+sum) on 1/2 ranks; B the same with
# N=100M on 2 ranks; C documents, ~1e9 uint16 tokens (2M docs, mean length 500),
# seqlen + total_vocab_freq + vocab_rarity on 2 ranks; Q the token-quality
# metrics (unique_token_ratio + token_entropy + repeated_ngram_ratio) on C's
# data and ranks; L seqlen alone on C's data and ranks; S the score metric on
# C's data and ranks: a float32 .npy score per document, scale 1000; MB a
# megatron_blend of three prefixes holding C's documents in thirds (each with
# GPT maps of sequence length 2048 from `generate --gpt-maps`), weights 1:1:1
# and train_samples filling the smallest, C's metrics on 2 ranks, measured
# beside MG, megatron_gpt over the first prefix with the same metrics (target:
# MB per sample <= 1.15x MG); D skew,
# N=10M all one value, 2 ranks; J ReadJsonlScores on one
# core over a 10M-line JSON-lines file (~557 MB, lines like {"id": 123,
# "text_len": 42, "score": 0.123456789}), its time taken inside the driver (no
# process start); Jn (only when asked for) the same file parsed line by line
# with nlohmann::json, for comparison. O: `dsanalyze order --buckets 100` alone
# (one process) over a 100M-sample analysis of B's seed config, value metric
# only, made once per scratch directory at 2 ranks. H: `dsanalyze merge` alone
# (one process) of two halves (dataset.sample_range) of B's seed config, made
# once per scratch directory at 2 ranks; the merge must equal the whole run's
# metric files, checked once. BT: `dsanalyze batches` alone (one process) over a
# 100M-sample analysis of B's seed config, value metric only, made (and timed,
# as BTA) at 2 ranks in the same invocation, once per picking order (BTd
# dataloader, BTs seqlen, BTr random); targets <= 4x BTA and peak RSS <= 24
# bytes a sample.
# Not in the default set (each run writes ~18 GB; they need ~40 GB free in the
# scratch, checked at the start): FLOOR, the floor program scripts/bench_floor.cc
# (compiled here with g++ -O2 -std=c++20; one core, writes the `value` metric's
# files of the seed benchmark at N=1e9, byte-identical to dsanalyze's, checked
# with cmp at N=1e6 first); FLOORG the floor writing only G's index files;
# DISK the floor program with --disk: the same files at the same sizes, the
# large ones zeros, nothing computed, written with drop-behind as dsanalyze
# writes (the time this file system takes to accept E's bytes); E the seed benchmark at N=1e9 on 2 ranks, all outputs; F E with
# memory.limit_per_rank 2GiB and a spill directory in the scratch; G E writing
# only index_to_sample, index_to_metric, percentile_merged (+ metric_value,
# reports); HE `dsanalyze merge` alone of two 5e8 halves of E's config, made
# once per scratch directory, checked identical to E's files when E ran in the
# same invocation. The ratios E/FLOOR, F/E, G/E, HE/E, E/DISK, HE/DISK (targets)
# and G/FLOORG (no target) are printed at the end.
# --quick divides every size by 10 (for a smoke run).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
scale=1
only="A1,A2,B,C,Q,L,S,MB,D,J,O,BT,H"
scratch=""
json_out="build/bench-results.json"
runs=3
bin=""
while (($#)); do
  case "$1" in
    --quick) scale=10 ;;
    --only) only="$2"; shift ;;
    --scratch) scratch="$2"; shift ;;
    --json) json_out="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --bin) bin=$(realpath "$2"); shift ;;
    *) echo "bench: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z "$bin" ]]; then
  scripts/setup.sh > /dev/null
  cmake --build "$repo/build" --target dsanalyze_jsonl_bench dsanalyze_token_quality_bench > /dev/null
  bin="$repo/build/dsanalyze"
fi
[[ -x "$bin" ]] || { echo "bench: $bin: not an executable" >&2; exit 2; }
if [[ -z "$scratch" ]]; then
  scratch=$(mktemp -d /tmp/dsanalyze-bench.XXXXXX)
  trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$scratch"
results="$scratch/results.jsonl"
load_before=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load_before" 'BEGIN { exit !(l > 0.5) }'; then
  echo "bench: warning: load average is $load_before; figures will be noisy" >&2
fi
: > "$results"
rm -f "$scratch/E.sha1"  # E's files, for HE's check: only from this invocation's E
failed=()

want() { [[ ",$only," == *",$1,"* ]]; }

n_a=$((10000000 / scale))
n_b=$((100000000 / scale))
n_e=$((1000000000 / scale))  # FLOOR, FLOORG, DISK, E, F, G, HE

# --- free space for the 1e9-sample cases ---
# One run of E (or FLOOR, F) writes ~18 GB (sample_to_metric.idx alone is 12 GB);
# F may spill up to ~16 GB more; HE keeps its two halves (~18 GB) in the scratch
# while the merge writes another ~18 GB. Runs delete their output before the next.
need_gb=0
if want FLOOR || want FLOORG || want DISK || want E || want G; then need_gb=20; fi
if want F; then need_gb=36; fi
if want HE; then
  if [[ -f "$scratch/out-HE-1/summary.json" ]]; then
    ((need_gb > 20)) || need_gb=20
  else
    need_gb=40
  fi
fi
if ((need_gb > 0)); then
  free_kb=$(df -Pk "$scratch" | awk 'NR == 2 { print $4 }')
  need_kb=$((need_gb * 1000000 / scale))
  if ((free_kb < need_kb)); then
    echo "bench: only $((free_kb / 1000000)) GB free in $scratch; --only $only needs about" \
      "$((need_kb / 1000000)) GB (each 1e9-sample run writes ~18 GB, see docs/benchmarks.md);" \
      "free some space or pass --scratch DIR on a larger file system" >&2
    exit 2
  fi
fi

# measure OUT_JSON CMD...: runs CMD, and writes to OUT_JSON its wall time, the CPU
# time (user, sys) and the largest peak RSS of it and its children, the bytes
# Dirty + Writeback in /proc/meminfo when it ended, the bytes the kernel wrote
# back while it ran (/proc/vmstat nr_written, machine-wide) and the time of a
# `sync` run right after it: the tail of writeback the run left behind.
# Returns CMD's exit status.
measure() {
  local out=$1
  shift
  python3 - "$out" "$@" <<'PY'
import json, os, resource, subprocess, sys, time
def meminfo(*keys):
    kb = {l.split(":")[0]: int(l.split()[1]) for l in open("/proc/meminfo")}
    return sum(kb.get(k, 0) for k in keys) * 1024
def written():
    pages = {l.split()[0]: int(l.split()[1]) for l in open("/proc/vmstat")}
    return pages.get("nr_written", 0) * os.sysconf("SC_PAGE_SIZE")
w0, r0 = written(), resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
rc = subprocess.call(sys.argv[2:], stdin=subprocess.DEVNULL)
t1 = time.perf_counter()
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
dirty, w1 = meminfo("Dirty", "Writeback"), written()
s0 = time.perf_counter()
subprocess.call(["sync"])
s1 = time.perf_counter()
json.dump({"wall": t1 - t0, "cpu_user": r1.ru_utime - r0.ru_utime, "cpu_sys": r1.ru_stime - r0.ru_stime,
           "maxrss_bytes": r1.ru_maxrss * 1024, "dirty_end_bytes": dirty,
           "written_back_bytes": w1 - w0, "sync_s": s1 - s0}, open(sys.argv[1], "w"))
sys.exit(rc)
PY
}

# record NAME RANKS SAMPLES MEASURE_JSON [SUMMARY_JSON]: appends one JSON line to
# $results. SAMPLES 0: the largest metric's from SUMMARY_JSON. Stages and peak RSS
# per rank come from SUMMARY_JSON when it exists, else the peak RSS is the
# measured process's.
record() {
  python3 - "$@" >> "$results" <<'PY'
import json, os, sys
name, ranks, samples, measured = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
m = json.load(open(measured))
row = {"case": name, "ranks": ranks, "samples": samples, "timings": [],
       "peak_rss_bytes": [m["maxrss_bytes"]], **m}
if len(sys.argv) > 5 and os.path.exists(sys.argv[5]):
    s = json.load(open(sys.argv[5]))
    if not samples:
        row["samples"] = max(v.get("samples", 0) for v in s["metrics"].values())
    row["timings"] = s.get("timings", [])
    row["peak_rss_bytes"] = s.get("peak_rss_bytes") or row["peak_rss_bytes"]
print(json.dumps(row))
PY
}

# run_case NAME RANKS CONFIG_JSON [keep]: runs it $runs times, appends one JSON line
# per run; deletes the output after the last run unless asked to keep it. A failed
# run is reported, ends that case, and makes the script exit non-zero at the end.
run_case() {
  local name=$1 ranks=$2 config=$3 keep=${4:-}
  printf '%s\n' "$config" > "$scratch/$name.json"
  for ((i = 1; i <= runs; i++)); do
    rm -rf "$scratch/out-$name"
    sync
    if ! measure "$scratch/$name.measure" \
        mpiexec -n "$ranks" "$bin" --config "$scratch/$name.json" --quiet --progress never; then
      echo "bench: case $name failed (run $i; config $scratch/$name.json)" >&2
      failed+=("$name")
      break
    fi
    record "$name" "$ranks" 0 "$scratch/$name.measure" "$scratch/out-$name/summary.json"
  done
  [[ -n "$keep" ]] || rm -rf "$scratch/out-$name"
}

# seed_config N METRICS_JSON OUTPUT [MODULUS] [OUTPUT_EXTRA] [TOP_EXTRA]: the seed
# benchmark; OUTPUT_EXTRA is added inside "output", TOP_EXTRA after "map".
seed_config() {
  printf '{"dataset": {"type": "synthetic_mod", "num_samples": %s, "modulus": %s},
    "metrics": %s, "output": {"path": "%s"%s}, "map": {"threads": 1, "batch_size": 1024}%s}' \
    "$1" "${4:-10000}" "$2" "$3" "${5:-}" "${6:-}"
}
seed_metrics='[{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}]'

# sha1_files DIR: "sha1  path-under-DIR" of each metric file (*/*.bin, */*.idx), sorted.
sha1_files() {
  python3 - "$1" <<'PY'
import glob, hashlib, os, sys
root = sys.argv[1]
for path in sorted(glob.glob(os.path.join(root, "*", "*.bin")) + glob.glob(os.path.join(root, "*", "*.idx"))):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            h.update(chunk)
    print(f"{h.hexdigest()}  {os.path.relpath(path, root)}")
PY
}

want A1 && run_case A1 1 "$(seed_config $n_a "$seed_metrics" "$scratch/out-A1")"
want A2 && run_case A2 2 "$(seed_config $n_a "$seed_metrics" "$scratch/out-A2")"
want B && run_case B 2 "$(seed_config $n_b "$seed_metrics" "$scratch/out-B")"
want D && run_case D 2 "$(seed_config $n_a '[{"name": "v", "metric": "value"}]' "$scratch/out-D" 1)"
docs=$((2000000 / scale))
tokens="$scratch/tok_$docs"  # C's, Q's, L's and S's data
if want C || want Q || want L || want S; then
  [[ -f "$tokens.idx" ]] ||
    "$bin" generate "$tokens" --documents "$docs" --vocab-size 50000 \
      --min-length 1 --max-length 999 --seed 1 > /dev/null
  echo $(($(stat -c %s "$tokens.bin") / 2)) > "$scratch/C.tokens"
fi
if want C; then
  run_case C 2 '{"dataset": {"type": "documents", "prefixes": ["'"$tokens"'"]},
    "metrics": [{"name": "seqlen", "metric": "seqlen"},
                {"name": "total_vocab_freq", "metric": "total_vocab_freq", "params": {"vocab_size": 50000}},
                {"name": "vocab_rarity", "metric": "vocab_rarity", "params": {"vocab_size": 50000}}],
    "output": {"path": "'"$scratch/out-C"'"}, "map": {"threads": 1, "batch_size": 1024}}'
fi
if want Q; then
  run_case Q 2 '{"dataset": {"type": "documents", "prefixes": ["'"$tokens"'"]},
    "metrics": [{"name": "unique_token_ratio", "metric": "unique_token_ratio"},
                {"name": "token_entropy", "metric": "token_entropy"},
                {"name": "repeated_ngram_ratio", "metric": "repeated_ngram_ratio"}],
    "output": {"path": "'"$scratch/out-Q"'"}, "map": {"threads": 1, "batch_size": 1024}}'
fi
if want L; then
  run_case L 2 '{"dataset": {"type": "documents", "prefixes": ["'"$tokens"'"]},
    "metrics": [{"name": "seqlen", "metric": "seqlen"}],
    "output": {"path": "'"$scratch/out-L"'"}, "map": {"threads": 1, "batch_size": 1024}}'
fi
if want S; then
  [[ -f "$tokens-quality.npy" ]] || python3 - "$tokens-quality.npy" "$docs" <<'PY'
import random, struct, sys
path, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(1)
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * ((-(10 + len(header) + 1)) % 64) + "\n"
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    f.write(struct.pack("<%df" % n, *(rng.random() for _ in range(n))))
PY
  run_case S 2 '{"dataset": {"type": "documents", "prefixes": ["'"$tokens"'"]},
    "metrics": [{"name": "quality", "metric": "score", "params": {"file": "'"$tokens-quality.npy"'",
                 "per": "document", "scale": 1000}}],
    "output": {"path": "'"$scratch/out-S"'"}, "map": {"threads": 1, "batch_size": 1024}}'
fi

# --- case MB: a 3-way megatron_blend, beside MG: megatron_gpt over one of its prefixes ---
if want MB; then
  vocab_metrics='[{"name": "seqlen", "metric": "seqlen"},
                {"name": "total_vocab_freq", "metric": "total_vocab_freq", "params": {"vocab_size": 50000}},
                {"name": "vocab_rarity", "metric": "vocab_rarity", "params": {"vocab_size": 50000}}]'
  mb_entries=""
  for k in 1 2 3; do
    mb="$scratch/tok_mb${k}_$docs"
    [[ -f "$mb.idx" ]] ||
      "$bin" generate "$mb" --documents $((docs / 3)) --vocab-size 50000 --min-length 1 \
        --max-length 999 --seed "$k" --gpt-maps 2048 > /dev/null
    mb_entries+="${mb_entries:+, }"'{"prefix": "'"$mb"'", "index_prefix": "'"${mb}_train_indexmap"'"}'
  done
  # train_samples whose 1:1:1 blend fits the smallest component (N_k = ceil(T/3 * 1.005)).
  mb_train=$(python3 - "$scratch" "$docs" <<'PY'
import ast, struct, sys
counts = []
for k in (1, 2, 3):
    with open(f"{sys.argv[1]}/tok_mb{k}_{sys.argv[2]}_train_indexmap_shuffle_idx.npy", "rb") as f:
        f.read(8)
        header = f.read(struct.unpack("<H", f.read(2))[0]).decode()
    counts.append(ast.literal_eval(header)["shape"][0])
print(int(min(counts) * 3 / 1.005) - 3)
PY
)
  # Out of the page cache first, so that the run's first read fills it as a user's run does
  # (a file just written by generate is cached in small pieces; dataset.h WillReadEverySample).
  sync
  for k in 1 2 3; do dd if="$scratch/tok_mb${k}_$docs.bin" iflag=nocache count=0 status=none; done
  run_case MG 2 '{"dataset": {"type": "megatron_gpt", "prefix": "'"$scratch/tok_mb1_$docs"'",
      "index_prefix": "'"$scratch/tok_mb1_${docs}_train_indexmap"'", "seq_length": 2048},
    "metrics": '"$vocab_metrics"',
    "output": {"path": "'"$scratch/out-MG"'"}, "map": {"threads": 1, "batch_size": 1024}}'
  run_case MB 2 '{"dataset": {"type": "megatron_blend", "datasets": ['"$mb_entries"'],
      "weights": [1, 1, 1], "train_samples": '"$mb_train"', "seq_length": 2048},
    "metrics": '"$vocab_metrics"',
    "output": {"path": "'"$scratch/out-MB"'"}, "map": {"threads": 1, "batch_size": 1024}}'
fi
# --- end of case MB ---
# --- cases MC, PC and OC: megatron_core (issue 45; docs/benchmarks.md) ---
# MC: MB's three prefixes and maps laid out as Megatron-Core's cache
# (scripts/bench_core_cache.py: the maps hard-linked under Core's names, the
# 1:1:1 blend cached), analysed as megatron_core with MB's metrics, at MB's
# blend size: the samples MB reads (target: MC per sample <= 1.05x MB).
# PC, PCN: a 2-way megatron_core blend of 1e8 samples (two generated prefixes,
# GPT maps of sequence length 1), vocab_rarity, 2 ranks, timed with --timings;
# PCN is the same run with dataset.sample_indices the identity (the same
# samples and ids; sample_indices turns the per-component statistics off, and
# its reading is in the map stage, not in report_commit). The per-component
# statistics cost PC's report_commit - PCN's (target: <= 5% of PC's wall).
# OC: `order --megatron-core-cache` over PC's analysis, beside OCO, `order
# --out` with the same options, run in turn (target: OC <= 2x OCO).
# run_timed NAME CONFIG_JSON [keep]: run_case with --timings, whose report_commit
# (slowest rank) goes into the row as report_commit_s.
run_timed() {
  local name=$1 config=$2 keep=${3:-}
  printf '%s\n' "$config" > "$scratch/$name.json"
  for ((i = 1; i <= runs; i++)); do
    rm -rf "$scratch/out-$name"
    sync
    if ! measure "$scratch/$name.measure" mpiexec -n 2 "$bin" --config "$scratch/$name.json" \
        --quiet --progress never --timings 2> "$scratch/$name.timings"; then
      echo "bench: case $name failed (run $i; config $scratch/$name.json)" >&2
      failed+=("$name")
      break
    fi
    python3 - "$scratch/$name.measure" "$scratch/$name.timings" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for line in open(sys.argv[2]):
    if line.split()[:1] == ["report_commit"]:
        m["report_commit_s"] = float(line.split()[2])
json.dump(m, open(sys.argv[1], "w"))
PY
    record "$name" 2 0 "$scratch/$name.measure" "$scratch/out-$name/summary.json"
  done
  [[ -n "$keep" ]] || rm -rf "$scratch/out-$name"
}
if want MC; then
  want MB || { echo "bench: MC is measured beside MB: give --only MB,MC" >&2; exit 2; }
  mc_cache="$scratch/core_mb_$docs"
  # MB's blend size: each component ceil(T/3 * 1.005) samples.
  mc_samples=$(python3 -c 'import math, sys; print(3 * math.ceil(int(sys.argv[1]) / 3 * 1.005))' "$mb_train")
  python3 scripts/bench_core_cache.py "$mc_cache" 2048 "$mc_samples" \
    "$scratch/tok_mb1_$docs" "$scratch/tok_mb2_$docs" "$scratch/tok_mb3_$docs" > /dev/null
  run_case MC 2 '{"dataset": {"type": "megatron_core", "path_to_cache": "'"$mc_cache"'",
      "data_path": ["1", "'"$scratch/tok_mb1_$docs"'", "1", "'"$scratch/tok_mb2_$docs"'",
                    "1", "'"$scratch/tok_mb3_$docs"'"]},
    "metrics": '"$vocab_metrics"',
    "output": {"path": "'"$scratch/out-MC"'"}, "map": {"threads": 1, "batch_size": 1024}}'
fi
if want PC || want OC; then
  oc_docs=$((102000 / scale))
  oc_cache="$scratch/core_oc_$oc_docs"
  for k in 1 2; do
    [[ -f "$scratch/tok_oc${k}_$oc_docs.idx" ]] ||
      "$bin" generate "$scratch/tok_oc${k}_$oc_docs" --documents "$oc_docs" --vocab-size 50000 \
        --min-length 1 --max-length 999 --seed "$k" --gpt-maps 1 > /dev/null
  done
  [[ -d "$oc_cache" ]] || python3 scripts/bench_core_cache.py "$oc_cache" 1 "$n_b" \
    "$scratch/tok_oc1_$oc_docs" "$scratch/tok_oc2_$oc_docs" > /dev/null
  pc_dataset='"type": "megatron_core", "path_to_cache": "'"$oc_cache"'",
      "data_path": ["1", "'"$scratch/tok_oc1_$oc_docs"'", "1", "'"$scratch/tok_oc2_$oc_docs"'"]'
  pc_rest='"metrics": [{"name": "rarity", "metric": "vocab_rarity", "params": {"vocab_size": 50000}}],
    "map": {"threads": 1, "batch_size": 1024}'
  pc_ids="$scratch/identity_$n_b.npy"
  [[ -f "$pc_ids" ]] || python3 - "$pc_ids" "$n_b" <<'PY'
import array, struct, sys
n = int(sys.argv[2])
header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
header += " " * ((-(10 + len(header) + 1)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
    array.array("q", range(n)).tofile(f)
PY
  run_timed PC '{"dataset": {'"$pc_dataset"'}, '"$pc_rest"',
    "output": {"path": "'"$scratch/out-PC"'"}}' keep
  want PC && run_timed PCN '{"dataset": {'"$pc_dataset"', "sample_indices": "'"$pc_ids"'"}, '"$pc_rest"',
    "output": {"path": "'"$scratch/out-PCN"'"}}'
fi
# run_core_order: OCO (order --out) and OC (order --megatron-core-cache) over
# PC's analysis, in turn, $runs times each.
run_core_order() {
  local analysis="$scratch/out-PC" out="$scratch/OC-cache" ids="$scratch/OCO-order.npy" i
  [[ -f "$analysis/summary.json" ]] || { echo "bench: OC: PC's analysis failed" >&2; failed+=(OC); return; }
  local args=(order --analysis "$analysis" --metric rarity --buckets 100 --seed 1)
  for ((i = 1; i <= runs; i++)); do
    rm -rf "$ids" "$out"
    sync
    measure "$scratch/OCO.measure" "$bin" "${args[@]}" --out "$ids" > /dev/null
    record OCO 1 "$n_b" "$scratch/OCO.measure"
    rm -f "$ids"
    sync
    measure "$scratch/OC.measure" "$bin" "${args[@]}" --megatron-core-cache "$out" > /dev/null
    record OC 1 "$n_b" "$scratch/OC.measure"
  done
  rm -rf "$ids" "$out"
}
want OC && run_core_order
rm -rf "$scratch/out-PC"
# --- end of cases MC, PC and OC ---

# run_jsonl NAME PARSER: times dsanalyze_jsonl_bench's read $runs times, one JSON line per run.
run_jsonl() {
  local name=$1 parser=$2 lines=$((10000000 / scale))
  local jbench file="$scratch/scores_$lines.jsonl"
  jbench="$(dirname "$bin")/dsanalyze_jsonl_bench"
  [[ -f "$file" ]] || "$jbench" generate "$file" "$lines"
  stat -c %s "$file" > "$scratch/J.bytes"
  for ((i = 1; i <= runs; i++)); do
    # "PARSER: BYTES bytes, ROWS rows, SECONDS s, MB/s"
    local seconds
    seconds=$("$jbench" read "$file" "$lines" "$parser" | awk '{ print $6 }')
    printf '{"case": "%s", "ranks": 1, "wall": %s, "samples": %d, "timings": [], "peak_rss_bytes": []}\n' \
      "$name" "$seconds" "$lines" >> "$results"
  done
}
# --- case O: dsanalyze order ---
# run_order: times `dsanalyze order --buckets 100` $runs times over O's analysis.
run_order() {
  local analysis="$scratch/out-O-analysis" out="$scratch/O-order.npy"
  if [[ ! -f "$analysis/summary.json" ]]; then
    seed_config $n_b '[{"name": "mod", "metric": "value"}]' "$analysis" > "$scratch/O.json"
    mpiexec -n 2 "$bin" --config "$scratch/O.json" --quiet --progress never
  fi
  for ((i = 1; i <= runs; i++)); do
    rm -f "$out"
    sync
    measure "$scratch/O.measure" \
      "$bin" order --analysis "$analysis" --metric mod --buckets 100 --seed 1 --out "$out" > /dev/null
    record O 1 "$n_b" "$scratch/O.measure"
  done
  rm -f "$out"
}
want O && run_order
# --- end of case O ---
# --- case BT: dsanalyze batches ---
# run_batches: makes B's analysis (value metric only) once at 2 ranks, timed as
# BTA, then times `dsanalyze batches` (max_tokens 65536, 64 micro-batches a
# batch) $runs times per picking order: BTd dataloader, BTs seqlen, BTr random.
run_batches() {
  local analysis="$scratch/out-BT-analysis" plan="$scratch/BT-plan" order
  seed_config $n_b '[{"name": "mod", "metric": "value"}]' "$analysis" > "$scratch/BT.json"
  rm -rf "$analysis"
  sync
  measure "$scratch/BTA.measure" mpiexec -n 2 "$bin" --config "$scratch/BT.json" --quiet --progress never
  record BTA 2 0 "$scratch/BTA.measure" "$analysis/summary.json"
  for order in dataloader seqlen random; do
    for ((i = 1; i <= runs; i++)); do
      rm -rf "$plan"
      sync
      measure "$scratch/BT.measure" "$bin" batches --analysis "$analysis" --metric mod \
        --max-tokens 65536 --effective-batch-size 64 --order "$order" --out "$plan" > /dev/null
      record "BT${order:0:1}" 1 "$n_b" "$scratch/BT.measure"
    done
  done
  rm -rf "$plan" "$analysis"
}
want BT && run_batches
# --- end of case BT ---
# --- cases H and HE: dsanalyze merge ---
# half_config N BEGIN END OUT: the seed config at N (both metrics) over positions [BEGIN, END).
half_config() {
  seed_config "$1" "$seed_metrics" "$4" |
    sed "s/\"num_samples\": $1,/\"num_samples\": $1, \"sample_range\": [$2, $3],/"
}
# run_merge NAME N: times `dsanalyze merge` of the two halves of the seed config at N
# $runs times; the halves (and for H the whole run) are made once per scratch
# directory. H's merge must equal its whole run's metric files; HE's, E's files
# when E ran in this invocation (their sha1, E.sha1).
run_merge() {
  local name=$1 n=$2 half=$(($2 / 2)) out="$scratch/out-$1-merged"
  if [[ ! -f "$scratch/out-$name-1/summary.json" ]]; then
    local parts=(0 1)
    if [[ $name == H ]]; then
      parts=(whole 0 1)
      seed_config "$n" "$seed_metrics" "$scratch/out-H-whole" > "$scratch/H-whole.json"
    fi
    half_config "$n" 0 $half "$scratch/out-$name-0" > "$scratch/$name-0.json"
    half_config "$n" $half "$n" "$scratch/out-$name-1" > "$scratch/$name-1.json"
    for part in "${parts[@]}"; do
      mpiexec -n 2 "$bin" --config "$scratch/$name-$part.json" --quiet --progress never
    done
  fi
  for ((i = 1; i <= runs; i++)); do
    rm -rf "$out"
    sync
    if ! measure "$scratch/$name.measure" \
        "$bin" merge "$scratch/out-$name-0" "$scratch/out-$name-1" --out "$out" > /dev/null; then
      echo "bench: case $name failed (run $i)" >&2
      failed+=("$name")
      rm -rf "$out"
      return
    fi
    record "$name" 1 "$n" "$scratch/$name.measure" "$out/summary.json"
  done
  if [[ $name == H ]]; then
    for f in "$scratch"/out-H-whole/*/*.bin "$scratch"/out-H-whole/*/*.idx; do
      cmp -s "$f" "$out/${f#"$scratch"/out-H-whole/}" || { echo "bench: H: $f differs" >&2; exit 1; }
    done
  elif [[ -f "$scratch/E.sha1" ]]; then
    if sha1_files "$out" | cmp -s - "$scratch/E.sha1"; then
      echo "bench: HE: the merged metric files equal E's ($(wc -l < "$scratch/E.sha1") files, sha1)" >&2
    else
      echo "bench: HE: the merged metric files differ from E's:" >&2
      sha1_files "$out" | diff - "$scratch/E.sha1" >&2 || true
      exit 1
    fi
  fi
  rm -rf "$out"
}
want H && run_merge H "$n_b"
# --- end of case H ---
# --- the floor and the 1e9-sample cases ---
# build_floor: compiles scripts/bench_floor.cc into the scratch directory (again
# when the source is newer), then checks once that it writes the same bytes as
# dsanalyze for the value metric (cmp at N = 1e6, 2 ranks).
floor="$scratch/bench_floor"
build_floor() {
  if [[ ! -x "$floor" || scripts/bench_floor.cc -nt "$floor" ]]; then
    g++ -O2 -std=c++20 -o "$floor" scripts/bench_floor.cc
  fi
  local check="$scratch/floor-check" n=1000000
  rm -rf "$check"
  mkdir -p "$check/floor/mod"
  mkdir -p "$check/disk/mod"
  "$floor" $n "$check/floor/mod/mod"
  "$floor" $n "$check/disk/mod/mod" --disk
  seed_config $n "$seed_metrics" "$check/dsanalyze" > "$check/config.json"
  mpiexec -n 2 "$bin" --config "$check/config.json" --quiet --progress never
  local count=0
  for f in "$check"/dsanalyze/mod/*.bin "$check"/dsanalyze/mod/*.idx; do
    cmp "$f" "$check/floor/mod/${f##*/}" >&2 || { echo "bench: the floor program's $f differs" >&2; exit 1; }
    [[ $(stat -c %s "$f") == $(stat -c %s "$check/disk/mod/${f##*/}") ]] ||
      { echo "bench: the floor program's --disk ${f##*/} is not the size of dsanalyze's" >&2; exit 1; }
    count=$((count + 1))
  done
  ((count == 8)) || { echo "bench: the floor check compared $count files, not 8" >&2; exit 1; }
  echo "bench: floor check: its 8 files equal dsanalyze's at N=$n (cmp), its 8 --disk files have their sizes" >&2
  rm -rf "$check"
}
# run_floor NAME FILES [--disk]: times the floor program at n_e writing FILES
# (all|index) $runs times.
run_floor() {
  local name=$1 files=$2 out="$scratch/out-$1" mode=("${@:3}")
  for ((i = 1; i <= runs; i++)); do
    rm -rf "$out"
    mkdir -p "$out/mod"
    sync
    measure "$scratch/$name.measure" "$floor" "$n_e" "$out/mod/mod" --files "$files" "${mode[@]}"
    record "$name" 1 "$n_e" "$scratch/$name.measure"
  done
  rm -rf "$out"
}
if want FLOOR || want FLOORG || want DISK; then build_floor; fi
want FLOOR && run_floor FLOOR all
want FLOORG && run_floor FLOORG index
want DISK && run_floor DISK all --disk
# same_as_e NAME: NAME's metric files (all of them, or for G the ones it
# writes) must hash as E's did in this invocation; exits 1 when not.
same_as_e() {
  local out="$scratch/out-$1"
  [[ -f "$scratch/E.sha1" && -f "$out/summary.json" ]] || return 0
  if sha1_files "$out" | grep -vxFf "$scratch/E.sha1" >&2; then
    echo "bench: $1: the metric files above differ from E's" >&2
    exit 1
  fi
  [[ $1 == G ]] || cmp -s <(sha1_files "$out") "$scratch/E.sha1" ||
    { echo "bench: $1: not every file of E was written" >&2; exit 1; }
  echo "bench: $1: its $(sha1_files "$out" | wc -l) metric files equal E's (sha1)" >&2
}
if want E; then
  run_case E 2 "$(seed_config $n_e "$seed_metrics" "$scratch/out-E")" keep
  if [[ -f "$scratch/out-E/summary.json" ]]; then sha1_files "$scratch/out-E" > "$scratch/E.sha1"; fi
  rm -rf "$scratch/out-E"
fi
if want F; then
  mkdir -p "$scratch/spill"
  run_case F 2 "$(seed_config $n_e "$seed_metrics" "$scratch/out-F" 10000 "" \
    ", \"memory\": {\"limit_per_rank\": \"2GiB\", \"scratch\": \"$scratch/spill\"}")" keep
  same_as_e F
  [[ -z "$(ls -A "$scratch/spill")" ]] || { echo "bench: F: the scratch is not empty" >&2; exit 1; }
  rm -rf "$scratch/spill" "$scratch/out-F"
fi
if want G; then
  run_case G 2 "$(seed_config $n_e "$seed_metrics" "$scratch/out-G" 10000 \
    ', "files": ["index_to_sample", "index_to_metric", "percentile_merged", "metric_value", "reports"]')" keep
  same_as_e G
  rm -rf "$scratch/out-G"
fi
want HE && run_merge HE "$n_e"
# --- end of the floor and the 1e9-sample cases ---
# --- case RP: the report page, the Spearman matrix and the extremes at B's size (issue #46) ---
# Not in the default set: scripts/bench.sh --only RP. B's dataset (the seed benchmark,
# N = 1e8 on 2 ranks) with two single-value metrics, mod and mod2 (both `value`), run with
# --timings. What report.html, summary.json's "spearman" and the extremes cost is the stage
# rank_sums (the matrix's sums, on every rank; the part carried by the first metric's
# sample_to_metric write is timed there and moved into rank_sums) plus report_commit
# (summary.json, histograms, extremes, report.html, curriculum_config.json and the commit,
# on rank 0), slowest rank each;
# printed as a share of the run's wall time, median of $runs runs (target: <= 3%).
run_report_cost() {
  local config="$scratch/RP.json" out="$scratch/out-RP" costs="$scratch/RP.costs"
  seed_config $n_b '[{"name": "mod", "metric": "value"}, {"name": "mod2", "metric": "value"}]' \
    "$out" > "$config"
  : > "$costs"
  for ((i = 1; i <= runs; i++)); do
    rm -rf "$out"
    sync
    if ! measure "$scratch/RP.measure" sh -c 'exec mpiexec -n 2 "$0" --config "$1" \
        --progress never --log-level warn --timings 2> "$2"' "$bin" "$config" "$scratch/RP.timings"; then
      echo "bench: case RP failed (run $i; config $config)" >&2
      failed+=("RP")
      break
    fi
    record RP 2 0 "$scratch/RP.measure" "$out/summary.json"
    python3 - "$scratch/RP.timings" "$scratch/RP.measure" >> "$costs" <<'PY'
import json, re, sys
text, wall = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))["wall"]
slowest = {m.group(1): float(m.group(3)) for m in
           re.finditer(r"^(\w+) +(\d+\.\d+) +(\d+\.\d+)$", text, re.M)}
cost = slowest.get("rank_sums", 0) + slowest["report_commit"]  # older builds: no rank_sums
print(json.dumps({"wall": wall, "rank_sums": slowest.get("rank_sums", 0),
                  "report_commit": slowest["report_commit"], "share": cost / wall}))
PY
  done
  rm -rf "$out"
  python3 - "$costs" <<'PY'
import json, sys
rows = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["share"])
if rows:
    m = rows[len(rows) // 2]
    shares = ", ".join("%.1f%%" % (100 * r["share"]) for r in rows)
    print(f"RP: page + matrix + extremes = rank_sums {m['rank_sums']:.3f} s + report_commit "
          f"{m['report_commit']:.3f} s of {m['wall']:.3f} s wall = {100 * m['share']:.1f}% "
          f"(median of {len(rows)}; all: {shares}; target <= 3%)", file=sys.stderr)
PY
}
want RP && run_report_cost
# --- end of case RP ---
want J && run_jsonl J simdjson
want Jn && run_jsonl Jn nlohmann

python3 - "$results" "$json_out" "$scale" "$load_before" "$scratch" "${failed[*]}" <<'PY'
import json, statistics, sys, platform, os, subprocess
rows = [json.loads(l) for l in open(sys.argv[1])]
cases = {}
for r in rows:
    cases.setdefault((r["case"], r["ranks"]), []).append(r)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
fs = subprocess.run(["stat", "-f", "-c", "%T", sys.argv[5]], capture_output=True, text=True).stdout.strip()
machine = {"cpu": cpu, "cpus": os.cpu_count(), "platform": platform.platform(),
           "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
           "scratch_fs": fs, "load_avg_before": float(sys.argv[4])}
print(f"machine: {cpu}, {os.cpu_count()} cpus, {machine['mem_gib']} GiB, {platform.platform()}, "
      f"scratch on {fs}, load average before: {sys.argv[4]}")
out = {"machine": machine, "scale": int(sys.argv[3]), "cases": []}
# cpu s: user + sys of the process and its children; cores: cpu s / wall s; dirty MiB:
# Dirty + Writeback when the run ended; wb MiB: written back during the run
# (machine-wide); sync s: a sync right after the run.
print(f"{'case':6} {'ranks':>5} {'samples':>11} {'wall s':>8} {'ns/sample':>9} {'cpu s':>7} {'user':>7} "
      f"{'sys':>7} {'cores':>5} {'dirty MiB':>9} {'wb MiB':>7} {'sync s':>6}  {'peak RSS MiB/rank':18} "
      f"per-stage slowest s (median run)")
def fmt(v, spec, width):
    return f"{v:{width}{spec}}" if v is not None else f"{'-':>{width}}"
for (case, ranks), runs in cases.items():  # in the order they ran
    runs.sort(key=lambda r: r["wall"])
    med = runs[len(runs) // 2]
    stages = {t["stage"]: t["max_seconds"] for t in (med["timings"] or [])}
    stage_txt = " ".join(f"{k}={v:.3f}" for k, v in stages.items() if v >= 0.005)
    rss = [round(b / 2**20) for b in (med["peak_rss_bytes"] or [])]
    ns = med["wall"] / med["samples"] * 1e9 if med["samples"] else 0
    user, system = med.get("cpu_user"), med.get("cpu_sys")
    cpu_s = user + system if user is not None else None
    mib = lambda key: med[key] / 2**20 if key in med else None
    print(f"{case:6} {ranks:5d} {med['samples']:11d} {med['wall']:8.3f} {ns:9.1f} {fmt(cpu_s, '.2f', 7)} "
          f"{fmt(user, '.2f', 7)} {fmt(system, '.2f', 7)} "
          f"{fmt(cpu_s / med['wall'] if cpu_s is not None else None, '.2f', 5)} "
          f"{fmt(mib('dirty_end_bytes'), '.0f', 9)} {fmt(mib('written_back_bytes'), '.0f', 7)} "
          f"{fmt(med.get('sync_s'), '.2f', 6)}  {str(rss):18} {stage_txt}")
    out["cases"].append({"case": case, "ranks": ranks, "samples": med["samples"],
                         "median_wall_s": med["wall"], "walls": [r["wall"] for r in runs],
                         "stages_median_run": med["timings"], "peak_rss_bytes": med["peak_rss_bytes"],
                         "cpu_user_s": user, "cpu_sys_s": system,
                         "dirty_writeback_end_bytes": med.get("dirty_end_bytes"),
                         "written_back_during_bytes": med.get("written_back_bytes"),
                         "sync_after_s": med.get("sync_s")})
# The issue's targets, checked on what ran (full-size runs only).
med = {c["case"]: c for c in out["cases"]}
def per_sample(c): return c["median_wall_s"] / c["samples"]
checks = []
if "A2" in med: checks.append(("A2 <= 0.6 s", med["A2"]["median_wall_s"] <= 0.6, f"{med['A2']['median_wall_s']:.3f} s"))
if "A1" in med: checks.append(("A1 <= 0.8 s", med["A1"]["median_wall_s"] <= 0.8, f"{med['A1']['median_wall_s']:.3f} s"))
if "B" in med and "A2" in med:
    r = per_sample(med["B"]) / per_sample(med["A2"])
    checks.append(("B per sample <= 1.3x A2", r <= 1.3, f"{r:.2f}x"))
if "B" in med:
    rss = med["B"]["peak_rss_bytes"]
    limit = 40 * med["B"]["samples"] / len(rss) + 100e6  # one single-value metric
    checks.append(("B peak RSS/rank <= 40 B/sample/metric + 100 MB", max(rss) <= limit,
                   f"{max(rss) / 2**20:.0f} MiB vs {limit / 2**20:.0f} MiB"))
    checks.append(("B rank 0 peak <= 1.25x other ranks", rss[0] <= 1.25 * max(rss[1:] or rss),
                   f"{rss[0] / max(rss[1:] or rss):.2f}x"))
if "E" in med and "B" in med:
    r = per_sample(med["E"]) / per_sample(med["B"])
    checks.append(("E per sample <= 1.2x B", r <= 1.2,
                   f"{per_sample(med['E']) * 1e9:.1f} vs {per_sample(med['B']) * 1e9:.1f} ns/sample, {r:.2f}x"))
if "C" in med:
    tokens = int(open(os.path.join(sys.argv[5], "C.tokens")).read())
    checks.append(("C <= 1.2 s", med["C"]["median_wall_s"] <= 1.2,
                   f"{med['C']['median_wall_s']:.3f} s, {tokens / 1e6:.0f}M tokens, "
                   f"{tokens / med['C']['median_wall_s'] / 1e6:.0f}M tokens/s"))
if "Q" in med and "C" in med:
    r = med["Q"]["median_wall_s"] / med["C"]["median_wall_s"]
    checks.append(("Q <= 1.5x C", r <= 1.5, f"{med['Q']['median_wall_s']:.3f} s, {r:.2f}x"))
if "S" in med and "L" in med:
    r = med["S"]["median_wall_s"] / med["L"]["median_wall_s"]
    checks.append(("S <= 1.2x L (score vs seqlen)", r <= 1.2,
                   f"{med['S']['median_wall_s']:.3f} s vs {med['L']['median_wall_s']:.3f} s, {r:.2f}x"))
if "MB" in med and "MG" in med:
    r = per_sample(med["MB"]) / per_sample(med["MG"])
    checks.append(("MB per sample <= 1.15x MG (blend vs one megatron_gpt)", r <= 1.15,
                   f"{per_sample(med['MB']) * 1e9:.0f} vs {per_sample(med['MG']) * 1e9:.0f} ns/sample, {r:.2f}x"))
# megatron_core (issue 45): MC against MB, the per-component statistics (PC, PCN), OC against OCO.
if "MC" in med and "MB" in med:
    r = per_sample(med["MC"]) / per_sample(med["MB"])
    checks.append(("MC per sample <= 1.05x MB (megatron_core vs megatron_blend)", r <= 1.05,
                   f"{per_sample(med['MC']) * 1e9:.0f} vs {per_sample(med['MB']) * 1e9:.0f} ns/sample, {r:.2f}x"))
if "PC" in med and "PCN" in med:
    commit = lambda c: statistics.median(r.get("report_commit_s", 0) for r in cases[(c, 2)])
    cost = commit("PC") - commit("PCN")
    r = cost / med["PC"]["median_wall_s"]
    b = f", {cost / med['B']['median_wall_s']:.1%} of B's {med['B']['median_wall_s']:.3f} s" if "B" in med else ""
    checks.append(("per-component statistics <= 5% of the run (PC's report_commit - PCN's)", r <= 0.05,
                   f"{commit('PC'):.3f} - {commit('PCN'):.3f} s = {cost:.3f} s, {r:.1%} of PC's "
                   f"{med['PC']['median_wall_s']:.3f} s{b}"))
if "OC" in med and "OCO" in med:
    r = med["OC"]["median_wall_s"] / med["OCO"]["median_wall_s"]
    checks.append(("OC <= 2x OCO (order --megatron-core-cache vs --out)", r <= 2,
                   f"{med['OC']['median_wall_s']:.3f} s vs {med['OCO']['median_wall_s']:.3f} s, {r:.2f}x"))
if "O" in med:
    checks.append(("O <= 2 s", med["O"]["median_wall_s"] <= 2,
                   f"{med['O']['median_wall_s']:.3f} s, {per_sample(med['O']) * 1e9:.1f} ns/sample"))
for bt in ("BTd", "BTs", "BTr"):
    if bt in med and "BTA" in med:
        r = med[bt]["median_wall_s"] / med["BTA"]["median_wall_s"]
        checks.append((f"{bt} <= 4x BTA (its analysis at 2 ranks)", r <= 4,
                       f"{med[bt]['median_wall_s']:.3f} s vs {med['BTA']['median_wall_s']:.3f} s, {r:.2f}x"))
        rss = max(med[bt]["peak_rss_bytes"]) / med[bt]["samples"]
        checks.append((f"{bt} peak RSS <= 24 B/sample", rss <= 24, f"{rss:.1f} B/sample"))
if "J" in med:
    mbps = int(open(os.path.join(sys.argv[5], "J.bytes")).read()) / med["J"]["median_wall_s"] / 1e6
    checks.append(("J >= 500 MB/s", mbps >= 500, f"{mbps:.0f} MB/s on one core"))
if "D" in med and "A2" in med:
    r = med["D"]["median_wall_s"] / med["A2"]["median_wall_s"]
    checks.append(("D <= 1.2x A2", r <= 1.2, f"{r:.2f}x"))
if int(sys.argv[3]) == 1 and checks:
    print("targets:")
    for name, ok, figure in checks:
        print(f"  {'met   ' if ok else 'MISSED'} {name}: {figure}")
out["targets"] = [{"target": n, "met": ok, "figure": f} for n, ok, f in checks]
# The 1e9-sample cases (issue #16), as ratios of median walls, for the cases that ran.
def wall(c): return med[c]["median_wall_s"]
ratios = []
for num, den, limit in (("E", "FLOOR", 1.2), ("F", "E", 1.3), ("G", "E", 0.4), ("HE", "E", 0.5),
                        ("G", "FLOORG", None), ("E", "DISK", 1.5), ("HE", "DISK", 1.3)):
    if num in med and den in med:
        r = wall(num) / wall(den)
        ratios.append({"ratio": f"{num}/{den}", "value": r, "target": limit,
                       "met": None if limit is None else r <= limit,
                       "figure": f"{wall(num):.3f} s / {wall(den):.3f} s"})
if "F" in med and med["F"]["peak_rss_bytes"]:
    peak = max(med["F"]["peak_rss_bytes"]) / 2**30
    ratios.append({"ratio": "F max peak RSS per rank, GiB", "value": peak, "target": 2.3,
                   "met": peak <= 2.3, "figure": f"{[round(b / 2**30, 2) for b in med['F']['peak_rss_bytes']]} GiB"})
if ratios:
    quick = "" if int(sys.argv[3]) == 1 else " (--quick: N / 10; the targets are for N = 1e9)"
    print(f"ratios{quick}:")
    for r in ratios:
        verdict = "      " if r["met"] is None else "met   " if r["met"] else "MISSED"
        target = "no target" if r["target"] is None else f"target <= {r['target']}"
        print(f"  {verdict} {r['ratio']} = {r['value']:.2f} ({target}; {r['figure']})")
out["ratios"] = ratios
if sys.argv[6]:
    out["failed"] = sys.argv[6].split()
    print(f"failed: {sys.argv[6]}")
json.dump(out, open(sys.argv[2], "w"), indent=1)
print(f"wrote {sys.argv[2]}")
PY
((${#failed[@]} == 0)) || { echo "bench: failed: ${failed[*]}" >&2; exit 1; }
