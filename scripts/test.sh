#!/usr/bin/env bash
# Runs setup if needed, then the whole test suite with ctest. Exits non-zero on
# any failure. --sanitize runs it on an ASan+UBSan build (build-asan/).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build
setup_args=()
if [[ "${1:-}" == "--sanitize" ]]; then
  build_dir=build-asan
  setup_args=(--sanitize)
  export ASAN_OPTIONS=detect_leaks=0
fi
scripts/setup.sh "${setup_args[@]}"
cd "$build_dir"
ctest --output-on-failure -j "$(nproc)" --timeout 600
