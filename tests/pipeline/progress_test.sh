#!/usr/bin/env bash
# --progress under mpiexec -n $NP, on the demo data (configs/demo.json's dataset):
# - auto on a terminal (a pseudo-terminal from `script`, the ranks' stderr being
#   hydra's pipes): one live `\r` line per stage — map, sample_to_metric, sort,
#   write, metric_value, report — cleared at the end (no exchange: the ranks'
#   ids are in rank order, so rank 0 takes each rank's keys as it writes);
# - auto with mpiexec's stderr in a file (also inside that terminal): no `\r`,
#   no progress line (the run is shorter than the 10 s log interval);
# - always into a file: one plain `[progress]` line per stage, no `\r`;
# - never, and the deprecated --no-progress: no progress and no summary;
# - the end-of-run summary's figures for the demo data; stdout stays empty;
# - with ids not in rank order (reversed sample_indices): an exchange line
#   (none on one rank);
# - a bad --progress value: one error, exit 2, no output.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
command -v script > /dev/null || { echo "SKIP: no script (util-linux)"; exit 0; }
support=$(cd "$(dirname "$0")/../support" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"
cat > demo.json <<JSON
{"dataset": {"type": "synthetic_mod", "num_samples": 100000},
 "metrics": [{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}],
 "output": {"path": "$work/out"}, "map": {"threads": 1, "batch_size": 1024}}
JSON
run="$MPIEXEC -n $NP $DSANALYZE --config demo.json"
stages=(map "mod: sample_to_metric" "mod: sort" "mod: write" "batch_sum: metric_value" report)

# In a terminal: `script` gives mpiexec a pseudo-terminal; the transcript holds
# what the user saw.
script -qfec "$run" tty.txt > /dev/null || fail "auto in a terminal: exit $?"
for s in "${stages[@]}"; do
  grep -qF $'\r'"$s " tty.txt || fail "no live line for '$s' in a terminal"
done
grep -qF $'\r\033[K[' tty.txt || fail "live line not cleared before the last log line"
grep -qF '[progress]' tty.txt && fail "plain progress lines in a terminal"

# mpiexec's stderr redirected to a file inside the terminal: a log, not a screen.
script -qfec "$run 2> redirected.err" /dev/null > /dev/null || fail "redirected: exit $?"
grep -qF $'\r' redirected.err && fail "auto drew live lines into a file"
grep -qF '[progress]' redirected.err && fail "auto logged progress lines for a short run"

# always, into a file: one plain line per stage.
$run --progress always > always.out 2> always.err || fail "always: exit $?"
grep -qF $'\r' always.err && fail "always drew live lines into a file"
for s in "${stages[@]}"; do
  [[ $(grep -cF "[progress] $s " always.err) == 1 ]] || fail "always: not one line for '$s'"
done

# The summary, checked against the demo data: value (x + 7) mod 10000 for x < 100000.
python3 - "$work/out" redirected.err always.err <<'PY' || fail "summary"
import os, sys
out, logs = sys.argv[1], sys.argv[2:]
def files_bytes(d):
    names = [os.path.join(d, f) for f in os.listdir(d)]
    inodes = {os.stat(f).st_ino: os.stat(f).st_size for f in names if os.path.isfile(f)}
    return len(names), sum(inodes.values())
values = sorted((x + 7) % 10000 for x in range(100000))
n, b = files_bytes(os.path.join(out, "mod"))
want_mod = (f"mod: {len(values)} samples, {len(set(values))} distinct values, min {values[0]}"
            f" / median {values[(len(values) + 1) // 2 - 1]} / max {values[-1]}; {n} files, {b} bytes")
total = sum(values)
n, b = files_bytes(os.path.join(out, "batch_sum"))
want_sum = (f"batch_sum: accumulate, 1 element, sum {total}, min {total} / max {total};"
            f" {n} files, {b} bytes")
for log in logs:
    lines = open(log).read().splitlines()
    i = lines.index("metrics:")
    assert lines[i + 1:i + 3] == [want_mod, want_sum], (log, lines[i + 1:i + 3], want_mod, want_sum)
PY

# Reversed ids (sample_indices N-1 ... 0): the sample sort exchanges the keys.
python3 "$support/reversed_ids_npy.py" ids.npy 100000
sed 's|"num_samples": 100000|&, "sample_indices": "'"$work"'/ids.npy"|' demo.json > reversed.json
$MPIEXEC -n "$NP" "$DSANALYZE" --config reversed.json --progress always 2> reversed.err ||
  fail "reversed ids: exit $?"
exchanges=1
((NP > 1)) || exchanges=0  # one rank holds the whole order: nothing to exchange
[[ $(grep -cF "[progress] mod: exchange " reversed.err) == "$exchanges" ]] ||
  fail "reversed ids on $NP rank(s): not $exchanges exchange line(s)"
for s in "mod: sort" "mod: write"; do
  [[ $(grep -cF "[progress] $s " reversed.err) == 1 ]] || fail "reversed ids: not one line for '$s'"
done
grep -qF "[progress] mod: exchange " always.err && fail "ids in rank order: an exchange line"

# never, and the deprecated spelling: nothing but the logs. stdout always empty.
for flag in "--progress never" --no-progress; do
  $run $flag > never.out 2> never.err || fail "$flag: exit $?"
  grep -qE $'\r|\\[progress\\]|^metrics:' never.err && fail "$flag printed progress or a summary"
  [[ ! -s never.out ]] || fail "$flag wrote to stdout"
done
[[ ! -s always.out ]] || fail "always wrote to stdout"
script -qfec "$run --progress never" never_tty.txt > /dev/null || fail "never in a terminal: exit $?"
grep -qF $'\r'"map " never_tty.txt && fail "never drew a live line in a terminal"

# A bad value: exit 2, the option named once, nothing written.
rm -rf out
set +e
$run --progress sometimes > bad.out 2> bad.err
code=$?
set -e
[[ $code == 2 ]] || fail "bad --progress: exit $code, want 2"
[[ $(grep -c -- '--progress' bad.err) == 1 ]] || fail "bad --progress: $(cat bad.err)"
[[ ! -e out ]] || fail "bad --progress: output written"
echo "ok"
