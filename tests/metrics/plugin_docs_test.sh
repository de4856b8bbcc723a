#!/usr/bin/env bash
# The complete minimal plugin of docs/plugins.md (its first ```c block)
# compiles as the page says (a C compiler, only the public header), is listed
# by `dsanalyze metrics --plugin`, and computes what it claims in a run.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}" "${SOURCE_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

awk '/^```c$/ {inside = 1; next} /^```$/ && inside {exit} inside' "$SOURCE_DIR/docs/plugins.md" \
  > "$work/even_tokens.c"
[[ -s "$work/even_tokens.c" ]] || fail "no C example in docs/plugins.md"
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -O2 -I "$SOURCE_DIR/lib/include" \
  "$work/even_tokens.c" -o "$work/libeven_tokens.so" || fail "the example does not compile"

"$DSANALYZE" metrics --plugin "$work/libeven_tokens.so" | grep -q "even_tokens .*single_value" \
  || fail "even_tokens not listed"

printf '%s\n' '{"dataset": {"type": "synthetic_mod", "num_samples": 1000},
  "metrics": [{"name": "even", "plugin": "'"$work/libeven_tokens.so"'", "metric": "even_tokens"}],
  "output": {"path": "'"$work/out"'"}, "map": {"threads": 2}}' > "$work/run.json"
"$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/run.json" --quiet || fail "run: exit $?"
# Sample x is the single value (x + 7) % 10000: one even token when x is odd.
python3 - "$work/out/even/even_sample_to_metric.bin" <<'PY'
import sys
got = list(open(sys.argv[1], "rb").read())  # uint8 values 0/1
assert got == [x % 2 for x in range(1000)], "even_tokens values differ"
PY
echo "plugin_docs on $NP ranks: all checks passed"
