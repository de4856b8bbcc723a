#!/usr/bin/env bash
# Runs a small synthetic config under `taskset -c 0 mpiexec -n $NP` (one core
# for all ranks) and checks the oversubscription warning: exactly one
# "dsanalyze: warning: NP ranks on a 1-core node" line for NP > 1, none for
# NP = 1; none with --quiet; report.html's summary box lists it with its fix. The outputs (made while waiting ranks yield) must
# verify and equal a one-rank run's. Exit 77 without taskset.
# DSANALYZE_WAIT: the checks above hold for its default (auto) and for spin;
# a value it does not know is one error line, exit 2, before any work.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
unset DSANALYZE_WAIT  # the suite sets yield; these runs check the default
command -v taskset >/dev/null || { echo "no taskset: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > run.json <<'JSON'
{"dataset": {"type": "synthetic_mod", "num_samples": 20000},
 "metrics": [{"name": "mod", "metric": "value"}], "output": {"path": "out"}}
JSON

# run NAME ARGS...: stderr of the run into NAME.err; the output must verify.
run() {
  local name=$1
  shift
  rm -rf out
  taskset -c 0 "$MPIEXEC" -n "$NP" "$DSANALYZE" --config run.json --progress never "$@" \
    2> "$name.err" || fail "$name: dsanalyze exited $?: $(cat "$name.err")"
  "$DSANALYZE" verify out > /dev/null || fail "$name: the output does not verify"
}
warnings() { grep -c '^dsanalyze: warning: ' "$1" || true; }

DSANALYZE_WAIT=sometimes "$MPIEXEC" -n "$NP" "$DSANALYZE" --config run.json > bad.out 2>&1 \
  && fail "DSANALYZE_WAIT=sometimes was accepted"
[[ $(cat bad.out) == "dsanalyze: error: DSANALYZE_WAIT: 'sometimes' is not auto, yield or spin" ]] \
  || fail "DSANALYZE_WAIT=sometimes: $(cat bad.out)"
[[ ! -e out ]] || fail "DSANALYZE_WAIT=sometimes left an output"

run plain
if [[ $NP -eq 1 ]]; then
  [[ $(warnings plain.err) -eq 0 ]] || fail "a warning for one rank: $(cat plain.err)"
  echo "one rank on one core: no warning"
  exit 0
fi
[[ $(warnings plain.err) -eq 1 ]] || fail "expected one warning line: $(cat plain.err)"
grep -q "^dsanalyze: warning: $NP ranks on a 1-core node (host .*); expect slow runs" plain.err \
  || fail "unexpected warning: $(cat plain.err)"
# The run's report.html lists it in its summary box (the first section), with its fix.
python3 - "$NP" <<'PY' || fail "report.html's summary box lacks the warning"
import html, re, sys
page = open("out/report.html").read()
start = page.find('<section id="summary">')
box = html.unescape(re.sub(r"<[^>]*>", " ", page[start:page.find("</section>", start)]))
assert start != -1 and "<section" not in page[:start], "the summary box is not first"
want = "%s ranks on a 1-core node" % sys.argv[1]
assert want in box and "use at most one rank per core" in box, box
PY

run quiet --quiet
[[ $(warnings quiet.err) -eq 0 ]] || fail "--quiet still warns: $(cat quiet.err)"
mv out quiet.out
DSANALYZE_WAIT=spin run spin
[[ $(warnings spin.err) -eq 1 ]] || fail "DSANALYZE_WAIT=spin: expected one warning: $(cat spin.err)"
"$DSANALYZE" compare --strict out quiet.out > /dev/null || fail "spin's output differs"
mv out out.np$NP
"$MPIEXEC" -n 1 "$DSANALYZE" --config run.json --quiet || fail "one-rank run exited $?"
"$DSANALYZE" compare --strict out out.np$NP > /dev/null || fail "output differs from one rank's"
echo "$NP ranks on one core: one warning, none with --quiet, same output"
