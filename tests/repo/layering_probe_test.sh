#!/usr/bin/env bash
# The linker enforces the layering (lib/CMakeLists.txt): two probe libraries
# that declare only util, built with their link checks as every folder is.
# The one calling util links; the one calling report/, which it does not
# declare, fails to link, naming the function.
# env: BUILD_DIR
set -uo pipefail
: "${BUILD_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
build() { cmake --build "$BUILD_DIR" --target "dsanalyze_layering_probe_$1_link_check" 2>&1; }

out=$(build declared) || { echo "$out" >&2; fail "the probe calling its declared util did not link"; }
out=$(build undeclared) && fail "the probe calling undeclared report/ linked"
grep -q "undefined reference to .*PercentileKey" <<< "$out" \
  || { echo "$out" >&2; fail "the probe failed, but not on its call into report/"; }
echo "ok: a call into a declared folder links; into an undeclared one: $(grep -m1 -o 'undefined reference to .*' <<< "$out")"
