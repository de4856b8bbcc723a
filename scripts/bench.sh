#!/usr/bin/env bash
# Benchmark suite (issue [Performance]): builds Release, generates inputs in a
# scratch directory (never in the repo), runs each case 3 times and reports the
# median wall time (including mpiexec), per-stage times (rank 0 / slowest rank,
# from the run's summary.json) and peak RSS per rank, as a table and as JSON.
#
#   scripts/bench.sh [--quick] [--only A1,A2,B,C,D] [--scratch DIR] [--json FILE]
#
# Cases: A1/A2 seed benchmark N=10M (value+sum) on 1/2 ranks; B the same with
# N=100M on 2 ranks; C documents, ~1e9 uint16 tokens (2M docs, mean length 500),
# seqlen + total_vocab_freq + vocab_rarity on 2 ranks; D skew, N=10M all one
# value, 2 ranks. --quick divides every size by 10 (for a smoke run).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
scale=1
only="A1,A2,B,C,D"
scratch=""
json_out="build/bench-results.json"
runs=3
while (($#)); do
  case "$1" in
    --quick) scale=10 ;;
    --only) only="$2"; shift ;;
    --scratch) scratch="$2"; shift ;;
    --json) json_out="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    *) echo "bench: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
scripts/setup.sh > /dev/null
bin="$repo/build/dsanalyze"
if [[ -z "$scratch" ]]; then
  scratch=$(mktemp -d /tmp/dsanalyze-bench.XXXXXX)
  trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$scratch"
results="$scratch/results.jsonl"
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
    mpiexec -n "$ranks" "$bin" --config "$scratch/$name.json" --quiet --no-progress
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
if want C; then
  docs=$((2000000 / scale))
  [[ -f "$scratch/tok_$docs.idx" ]] ||
    "$bin" generate "$scratch/tok_$docs" --documents "$docs" --vocab-size 50000 \
      --min-length 1 --max-length 999 --seed 1 > /dev/null
  run_case C 2 '{"dataset": {"type": "documents", "prefixes": ["'"$scratch/tok_$docs"'"]},
    "metrics": [{"name": "seqlen", "metric": "seqlen"},
                {"name": "total_vocab_freq", "metric": "total_vocab_freq", "params": {"vocab_size": 50000}},
                {"name": "vocab_rarity", "metric": "vocab_rarity", "params": {"vocab_size": 50000}}],
    "output": {"path": "'"$scratch/out-C"'"}, "map": {"threads": 1, "batch_size": 1024}}'
fi

python3 - "$results" "$json_out" "$scale" <<'PY'
import json, statistics, sys, platform, os
rows = [json.loads(l) for l in open(sys.argv[1])]
cases = {}
for r in rows:
    cases.setdefault((r["case"], r["ranks"]), []).append(r)
out = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform()}, "scale": int(sys.argv[3]), "cases": []}
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
json.dump(out, open(sys.argv[2], "w"), indent=1)
print(f"wrote {sys.argv[2]}")
PY
