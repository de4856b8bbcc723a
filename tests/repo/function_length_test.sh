#!/usr/bin/env bash
# scripts/check_function_length.sh on made-up sources: a 61-line function is
# reported as `file:line: name is 61 lines (limit 60)` with exit 1, a 60-line
# one is not, a function after a `noexcept` or `override` one is still
# measured, and without pmccabe the script says so in one line and exits 2.
# env: SOURCE_DIR
set -euo pipefail
: "${SOURCE_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
check="$SOURCE_DIR/scripts/check_function_length.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/function-length-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# A function `name` whose body has `statements` lines: statements + 2 lines in all.
function_of() {
  echo "int $1() {"
  echo "  int x = 0;"
  for ((i = 1; i < $2; ++i)); do echo "  x += $i;"; done
  echo "}"
}

mkdir -p "$scratch/ok" "$scratch/long"
{
  echo "struct A { A(A&& o) noexcept; void F() override; };"
  echo "A::A(A&& o) noexcept {}"
  echo "void A::F() override {}"
  function_of Sixty 58
} > "$scratch/ok/sixty.cc"
cp "$scratch/ok/sixty.cc" "$scratch/long/sixty.cc"
{
  echo "namespace ns {"
  echo "Thing::Thing(Thing&& other) noexcept : v_(other.v_) {}"
  function_of SixtyOne 59
  echo "}  // namespace ns"
} > "$scratch/long/sixty_one.cc"

out=$(bash "$check" "$scratch/ok") || fail "60-line function rejected: $out"

rc=0
out=$(bash "$check" "$scratch/long") || rc=$?
((rc == 1)) || fail "exit $rc for a 61-line function, expected 1: $out"
expected="$scratch/long/sixty_one.cc:3: ns::SixtyOne is 61 lines (limit 60)"
[[ "$out" == "$expected" ]] || fail "printed '$out', expected '$expected'"

# Without pmccabe on the PATH (only what the script needs before looking).
mkdir "$scratch/bin"
ln -s "$(command -v dirname)" "$scratch/bin/dirname"
rc=0
err=$(PATH="$scratch/bin" "$BASH" "$check" 2>&1 > /dev/null) || rc=$?
((rc == 2)) || fail "exit $rc without pmccabe, expected 2"
[[ $(wc -l <<< "$err") -eq 1 && "$err" == *"pmccabe is not installed"* ]] ||
  fail "without pmccabe printed: $err"
echo "PASS"
