#!/usr/bin/env bash
# One documents run under mpiexec -n $NP with --timings, checking what
# summary.json and the timings table say about the run itself:
# - summary.json's timings hold every stage but report_commit (still running
#   when the file is written; it used to be recorded as 0), --timings shows it;
# - peak_anon_bytes: one entry per rank, 0 < anonymous <= peak RSS, and the
#   table prints both per rank;
# - curriculum_config.json's total_curriculum_step: without
#   output.total_curriculum_step a placeholder, marked in _comment and by one
#   warning at the end of the run; with it, the given value and no warning.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$DSANALYZE" generate data/corpus --documents 20000 --max-length 300 > /dev/null
cat > run.json <<'JSON'
{"dataset": {"type": "documents", "prefixes": ["data/corpus", "data/corpus"]},
 "metrics": [{"name": "seqlen", "metric": "seqlen"}], "output": {"path": "out"}}
JSON
"$MPIEXEC" -n "$NP" "$DSANALYZE" --config run.json --timings --log-level warn 2> timings.txt
sed 's/"out"}/"out2", "total_curriculum_step": 55000}/' run.json > run2.json
"$MPIEXEC" -n "$NP" "$DSANALYZE" --config run2.json --log-level warn 2> run2.err
python3 - "$NP" <<'PY'
import json, re, sys
np = int(sys.argv[1])
s = json.load(open("out/summary.json"))
stages = [t["stage"] for t in s["timings"]]
want = ["open", "map", "rank_bins", "rank_sums", "minmax", "sample_to_metric", "local_sort", "splitters", "exchange",
        "merge", "write", "accumulate"]
assert stages == want, f"summary.json stages {stages}"
rss, anon = s["peak_rss_bytes"], s.get("peak_anon_bytes")
assert anon is not None and len(anon) == np == len(rss), f"peak_anon_bytes {anon}, rss {rss}"
for r in range(np):
    assert 0 < anon[r] <= rss[r], f"rank {r}: anonymous {anon[r]} vs RSS {rss[r]}"
table = open("timings.txt").read()
assert re.search(r"^report_commit +\d+\.\d+ +\d+\.\d+$", table, re.M), table
rows = re.findall(r"^peak RSS rank (\d+): [\d.]+ MiB \(anonymous [\d.]+ MiB\)$", table, re.M)
assert rows == [str(r) for r in range(np)], table
warnings = [l for l in table.splitlines() if "[warning]" in l]
assert len(warnings) == 1 and "total_curriculum_step is a placeholder" in warnings[0], table
assert "total_curriculum_step" not in open("run2.err").read(), open("run2.err").read()
for out, steps, placeholder in (("out", 110000, True), ("out2", 55000, False)):
    c = json.load(open(out + "/curriculum_config.json"))
    m = c["data_efficiency"]["data_sampling"]["curriculum_learning"]["curriculum_metrics"]["seqlen"]
    assert m["schedule_config"]["total_curriculum_step"] == steps, (out, m)
    assert ("PLACEHOLDER" in c["_comment"]) == placeholder, (out, c["_comment"])
print("ok:", np, "ranks; RSS", rss, "anonymous", anon)
PY
