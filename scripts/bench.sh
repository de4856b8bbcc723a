#!/usr/bin/env bash
# Benchmark suite (issue [Performance]): builds Release, generates inputs in a
# scratch directory (never in the repo), runs each case 3 times and reports the
# median wall time (including mpiexec), per-stage times (rank 0 / slowest rank,
# from the run's summary.json) and peak RSS per rank, as a table and as JSON.
#
#   scripts/bench.sh [--quick] [--only A1,A2,B,C,Q,L,S,D,J,O,H] [--scratch DIR] [--json FILE]
#                    [--runs K] [--bin PATH]
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
# C's data and ranks: a float32 .npy score per document, scale 1000; D skew,
# N=10M all one value, 2 ranks; J ReadJsonlScores on one
# core over a 10M-line JSON-lines file (~557 MB, lines like {"id": 123,
# "text_len": 42, "score": 0.123456789}), its time taken inside the driver (no
# process start); Jn (only when asked for) the same file parsed line by line
# with nlohmann::json, for comparison. O: `dsanalyze order --buckets 100` alone
# (one process) over a 100M-sample analysis of B's seed config, value metric
# only, made once per scratch directory at 2 ranks. H: `dsanalyze merge` alone
# (one process) of two halves (dataset.sample_range) of B's seed config, made
# once per scratch directory at 2 ranks; the merge must equal the whole run's
# metric files, checked once.
# --quick divides every size by 10 (for a smoke run).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
scale=1
only="A1,A2,B,C,Q,L,S,D,J,O,H"
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

want() { [[ ",$only," == *",$1,"* ]]; }

# run_case NAME RANKS CONFIG_JSON: runs it $runs times, appends one JSON line per run.
run_case() {
  local name=$1 ranks=$2 config=$3
  printf '%s\n' "$config" > "$scratch/$name.json"
  for ((i = 1; i <= runs; i++)); do
    rm -rf "$scratch/out-$name"
    local t0 t1
    t0=$(date +%s.%N)
    mpiexec -n "$ranks" "$bin" --config "$scratch/$name.json" --quiet --progress never
    t1=$(date +%s.%N)
    python3 - "$name" "$ranks" "$t0" "$t1" "$scratch/out-$name/summary.json" >> "$results" <<'PY'
import json, sys
name, ranks, t0, t1, summary = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
s = json.load(open(summary))
samples = max(m.get("samples", 0) for m in s["metrics"].values())
print(json.dumps({"case": name, "ranks": ranks, "wall": t1 - t0, "samples": samples,
                  "timings": s["timings"], "peak_rss_bytes": s["peak_rss_bytes"]}))
PY
  done
  rm -rf "$scratch/out-$name"
}

seed_config() {  # N, metrics-json, output, [modulus]
  printf '{"dataset": {"type": "synthetic_mod", "num_samples": %s, "modulus": %s},
    "metrics": %s, "output": {"path": "%s"}, "map": {"threads": 1, "batch_size": 1024}}' \
    "$1" "${4:-10000}" "$2" "$3"
}
seed_metrics='[{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}]'
n_a=$((10000000 / scale))
n_b=$((100000000 / scale))

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
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" order --analysis "$analysis" --metric mod --buckets 100 --seed 1 --out "$out" > /dev/null
    t1=$(date +%s.%N)
    printf '{"case": "O", "ranks": 1, "wall": %s, "samples": %d, "timings": [], "peak_rss_bytes": []}\n' \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')" "$n_b" >> "$results"
  done
  rm -f "$out"
}
want O && run_order
# --- end of case O ---
# --- case H: dsanalyze merge ---
# half_config BEGIN END OUT: B's seed config (both metrics) over positions [BEGIN, END).
half_config() {
  seed_config $n_b "$seed_metrics" "$3" | sed "s/\"num_samples\": $n_b,/\"num_samples\": $n_b, \"sample_range\": [$1, $2],/"
}
# run_merge: times `dsanalyze merge` of the two halves $runs times.
run_merge() {
  local half=$((n_b / 2)) out="$scratch/out-H-merged"
  if [[ ! -f "$scratch/out-H-whole/summary.json" ]]; then
    seed_config $n_b "$seed_metrics" "$scratch/out-H-whole" > "$scratch/H-whole.json"
    half_config 0 $half "$scratch/out-H-0" > "$scratch/H-0.json"
    half_config $half $n_b "$scratch/out-H-1" > "$scratch/H-1.json"
    for part in whole 0 1; do
      mpiexec -n 2 "$bin" --config "$scratch/H-$part.json" --quiet --progress never
    done
  fi
  for ((i = 1; i <= runs; i++)); do
    rm -rf "$out"
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" merge "$scratch/out-H-0" "$scratch/out-H-1" --out "$out" > /dev/null
    t1=$(date +%s.%N)
    printf '{"case": "H", "ranks": 1, "wall": %s, "samples": %d, "timings": [], "peak_rss_bytes": []}\n' \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')" "$n_b" >> "$results"
  done
  for f in "$scratch"/out-H-whole/*/*.bin "$scratch"/out-H-whole/*/*.idx; do
    cmp -s "$f" "$out/${f#"$scratch"/out-H-whole/}" || { echo "bench: H: $f differs" >&2; exit 1; }
  done
  rm -rf "$out"
}
want H && run_merge
# --- end of case H ---
want J && run_jsonl J simdjson
want Jn && run_jsonl Jn nlohmann

python3 - "$results" "$json_out" "$scale" "$load_before" "$scratch" <<'PY'
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
print(f"{'case':4} {'ranks':>5} {'samples':>11} {'wall s':>8} {'ns/sample':>9}  per-stage slowest s (median run)            peak RSS MiB/rank")
for (case, ranks), runs in sorted(cases.items()):
    runs.sort(key=lambda r: r["wall"])
    med = runs[len(runs) // 2]
    stages = {t["stage"]: t["max_seconds"] for t in (med["timings"] or [])}
    stage_txt = " ".join(f"{k}={v:.3f}" for k, v in stages.items() if v >= 0.005)
    rss = [round(b / 2**20) for b in (med["peak_rss_bytes"] or [])]
    ns = med["wall"] / med["samples"] * 1e9 if med["samples"] else 0
    print(f"{case:4} {ranks:5d} {med['samples']:11d} {med['wall']:8.3f} {ns:9.1f}  {stage_txt:45} {rss}")
    out["cases"].append({"case": case, "ranks": ranks, "samples": med["samples"],
                         "median_wall_s": med["wall"], "walls": [r["wall"] for r in runs],
                         "stages_median_run": med["timings"], "peak_rss_bytes": med["peak_rss_bytes"]})
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
if "C" in med:
    tokens = int(open(os.path.join(sys.argv[5], "C.tokens")).read())
    checks.append(("C <= 4 s", med["C"]["median_wall_s"] <= 4,
                   f"{med['C']['median_wall_s']:.3f} s, {tokens / 1e6:.0f}M tokens, "
                   f"{tokens / med['C']['median_wall_s'] / 1e6:.0f}M tokens/s"))
if "Q" in med and "C" in med:
    r = med["Q"]["median_wall_s"] / med["C"]["median_wall_s"]
    checks.append(("Q <= 3x C", r <= 3, f"{med['Q']['median_wall_s']:.3f} s, {r:.2f}x"))
if "S" in med and "L" in med:
    r = med["S"]["median_wall_s"] / med["L"]["median_wall_s"]
    checks.append(("S <= 1.2x L (score vs seqlen)", r <= 1.2,
                   f"{med['S']['median_wall_s']:.3f} s vs {med['L']['median_wall_s']:.3f} s, {r:.2f}x"))
if "O" in med:
    checks.append(("O <= 2 s", med["O"]["median_wall_s"] <= 2,
                   f"{med['O']['median_wall_s']:.3f} s, {per_sample(med['O']) * 1e9:.1f} ns/sample"))
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
json.dump(out, open(sys.argv[2], "w"), indent=1)
print(f"wrote {sys.argv[2]}")
PY
