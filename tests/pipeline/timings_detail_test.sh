#!/usr/bin/env bash
# A run with a dependency pass (vocab_rarity's total_vocab_freq) under
# mpiexec -n $NP:
# - --timings shows the dependency pass on its own line under map (which
#   includes it) and, under "per metric", the per-metric stages split by
#   metric, each with rank 0's and the slowest rank's seconds;
# - on a terminal (`script`), the dependency pass's log line starts a line of
#   its own: the live progress line is cleared before it, never written onto.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
"$DSANALYZE" generate corpus --documents 20000 --vocab-size 5000 > /dev/null
cat > run.json <<'JSON'
{"dataset": {"type": "documents", "prefixes": ["corpus"]},
 "metrics": [{"name": "seqlen", "metric": "seqlen"},
             {"name": "rarity", "metric": "vocab_rarity", "params": {"vocab_size": 5000}}],
 "output": {"path": "out"}}
JSON
"$MPIEXEC" -n "$NP" "$DSANALYZE" --config run.json --timings --log-level warn 2> timings.txt \
  || fail "run exited $?: $(cat timings.txt)"
python3 - <<'PY' || fail "timings table: $(cat timings.txt)"
import re
rows = [l for l in open("timings.txt").read().splitlines()]
row = r" +\d+\.\d{3} +\d+\.\d{3}$"
i = next(k for k, l in enumerate(rows) if re.match(r"^map" + row, l))
assert re.match(r"^  dependency pass" + row, rows[i + 1]), rows[i + 1]
j = rows.index("per metric")
split = [l.split()[0] + " " + l.split()[1] for l in rows[j + 1:] if re.match(r"^  \w+: \w+" + row, l)]
for metric in ("seqlen:", "rarity:"):
    for stage in ("local_sort", "write"):
        assert metric + " " + stage in split, (metric, stage, split)
# The columns line up under the header, also after a long label
# ("  seqlen: sample_to_metric").
table = [l for l in rows if re.search(row, l)]
assert len({l.rindex(".") for l in table}) == 1 and len({len(l) for l in table}) == 1, table
assert len(rows[0]) == len(table[0]) and rows[0].startswith("stage "), (rows[0], table[0])
PY
if command -v script > /dev/null; then
  script -qfec "$MPIEXEC -n $NP $DSANALYZE --config run.json" tty.txt > /dev/null || fail "tty run: exit $?"
  python3 - <<'PY' || fail "the dependency pass's log line was written onto the progress line"
import re
text = open("tty.txt", encoding="utf-8", errors="replace", newline="").read()
found = list(re.finditer(r"\[\d\d:\d\d:\d\d\.\d{3}\] \[[^\]]*\] dependency pass over", text))
assert found, "no dependency pass line"
assert "\rdependency pass" in text, "no live dependency pass line"
for m in found:
    # What precedes the log line on its screen line: after the last \r, at
    # most an erase (\x1b[K), never the progress line's text.
    line = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
    assert line.split("\r")[-1] in ("", "\x1b[K"), repr(line)
PY
fi
echo "timings detail: $NP rank(s): dependency pass and per-metric stages shown"
