#!/usr/bin/env bash
# Command-line errors under mpiexec -n $NP: each is exactly one stderr line
# "dsanalyze: error: <problem>; see dsanalyze [cmd] --help" (printed by one
# rank only), with a "did you mean" naming the nearest option or subcommand,
# exit 2 and nothing on stdout; --help and --version still exit 0.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_error() {  # expect_error "EXPECTED LINE" ARGS...
  local want=$1 code=0
  shift
  timeout 20 "$MPIEXEC" -n "$NP" "$DSANALYZE" "$@" > "$work/out" 2> "$work/err" || code=$?
  [[ $code == 2 ]] || fail "$*: exit $code, want 2; stderr: $(cat "$work/err")"
  [[ ! -s "$work/out" ]] || fail "$*: stdout not empty: $(cat "$work/out")"
  [[ "$(cat "$work/err")" == "$want" ]] ||
    fail "$*: stderr is"$'\n'"$(cat "$work/err")"$'\n'"want"$'\n'"$want"
}

expect_error 'dsanalyze: error: unknown option "--confg" (did you mean "--config"?); see dsanalyze --help' \
  --confg run.json
expect_error 'dsanalyze: error: unknown option "--confg" (did you mean "--config"?); see dsanalyze --help' \
  --confg=run.json
# The typo is named, not the "--config is required" it causes.
expect_error 'dsanalyze: error: unknown option "--confg" (did you mean "--config"?); see dsanalyze run --help' \
  run --confg run.json
expect_error 'dsanalyze: error: unknown option "--timngs" (did you mean "--timings"?); see dsanalyze run --help' \
  run --config run.json --timngs
expect_error 'dsanalyze: error: unknown option "--strct" (did you mean "--strict"?); see dsanalyze compare --help' \
  compare a b --strct
expect_error 'dsanalyze: error: unknown option "--frobnicate"; see dsanalyze --help' --frobnicate
expect_error 'dsanalyze: error: unknown option "-x"; see dsanalyze --help' -x run.json
expect_error 'dsanalyze: error: --rows: needs a value; see dsanalyze inspect --help' inspect a --rows
expect_error 'dsanalyze: error: unknown command "verfy" (did you mean "verify"?); see dsanalyze --help' \
  verfy out
expect_error 'dsanalyze: error: unexpected argument "run.json"; see dsanalyze --help' run.json
expect_error 'dsanalyze: error: unexpected argument "c"; see dsanalyze compare --help' compare a b c
expect_error 'dsanalyze: error: --config is required; see dsanalyze run --help' run
expect_error 'dsanalyze: error: --documents: expected a positive integer, got "abc"; see dsanalyze generate --help' \
  generate "$work/g" --documents abc
expect_error 'dsanalyze: error: --log-level: loud not in {trace,debug,info,warn,error,off}; see dsanalyze --help' \
  --config run.json --log-level loud
# Top-level options before a command that does not read them there are
# refused, not silently ignored (merge reads --timings and --progress).
expect_error 'dsanalyze: error: --timings: given before metrics, which does not read it there (the options of a command come after its name); see dsanalyze metrics --help' \
  --timings metrics
expect_error 'dsanalyze: error: --config: given before verify, which does not read it there (the options of a command come after its name); see dsanalyze verify --help' \
  --config run.json verify out
expect_error 'dsanalyze: error: --quiet: given before run, which does not read it there (the options of a command come after its name); see dsanalyze run --help' \
  --quiet run --config run.json
expect_error 'dsanalyze: error: --no-progress: given before merge, which does not read it there (the options of a command come after its name); see dsanalyze merge --help' \
  --no-progress merge a b --out c

"$MPIEXEC" -n "$NP" "$DSANALYZE" --version > "$work/out" 2> "$work/err" || fail "--version failed"
[[ "$(sort -u "$work/out")" == "dsanalyze "* ]] || fail "--version printed $(cat "$work/out")"
"$MPIEXEC" -n "$NP" "$DSANALYZE" run --help > "$work/out" || fail "run --help failed"
grep -q -- "--config" "$work/out" || fail "run --help does not list --config"
echo "ok: parse errors under $NP ranks"
