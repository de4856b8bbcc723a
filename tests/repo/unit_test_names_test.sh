#!/usr/bin/env bash
# Every Catch2 test case reaches ctest as its own test. catch_discover_tests
# cannot carry a name holding '[' (Catch reads it as a tag): one such name
# folds it and every later test case into a single ctest entry, silently
# (seen: 519 tests shrank to 313). Fails naming each offending test case.
# Usage: unit_test_names_test.sh UNIT_TESTS_BINARY
set -euo pipefail
bad=$("$1" --list-test-names-only | grep -n '\[' || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: test case names with '[' (ctest cannot list them; rephrase):" >&2
  echo "$bad" >&2
  exit 1
fi
echo "ok: $("$1" --list-test-names-only | grep -c .) test case names, none with '['"
