#!/usr/bin/env bash
# Builds and runs one libFuzzer target of tests/fuzz/.
#
#   scripts/fuzz.sh [--merge] TARGET SECONDS [libFuzzer args...]
#
# TARGET is idx, npy, config, jsonl, dsconfig or maps. The fuzzer runs for SECONDS (-max_total_time)
# on a working copy of tests/fuzz/corpus/TARGET/ plus tests/fuzz/regressions/
# TARGET/, in a scratch directory under the build directory; the committed
# corpus is not touched unless --merge is given, which afterwards minimizes the
# committed corpus and what the run found (-merge=1, one input per covered
# edge) back into
# tests/fuzz/corpus/TARGET/, ready to review and commit.
# Prints the run's totals (executions, exec/s, cov, ft) and the path of every
# crash, leak, timeout or OOM input; exits non-zero if there was one.
#
# Environment: FUZZ_BUILD_DIR (default build-fuzz at the repository root),
# FUZZ_CXX (default clang++). Extra args go to libFuzzer, e.g. -jobs=1
# (libFuzzer then logs to fuzz-0.log in the scratch directory) or -max_len=N.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
merge=0
if [[ "${1:-}" == "--merge" ]]; then
  merge=1
  shift
fi
if [[ $# -lt 2 ]]; then
  echo "usage: scripts/fuzz.sh [--merge] TARGET SECONDS [libFuzzer args...]" >&2
  echo "targets: idx npy config jsonl dsconfig maps" >&2
  exit 2
fi
target="$1"
seconds="$2"
shift 2
case "$target" in
  idx | npy | config | jsonl | dsconfig | maps) ;;
  *)
    echo "fuzz.sh: unknown target '$target' (expected idx, npy, config, jsonl, dsconfig or maps)" >&2
    exit 2
    ;;
esac

build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root/tests/fuzz" -B "$build" -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++}" >/dev/null
fi
cmake --build "$build" --target "${target}_fuzz" -j2 >/dev/null
fuzzer="$build/${target}_fuzz"

work="$(mktemp -d "$build/run-${target}-XXXXXX")"
mkdir -p "$work/corpus" "$work/artifacts"
cp "$root/tests/fuzz/corpus/$target/." "$work/corpus/" -r 2>/dev/null || true
cp "$root/tests/fuzz/regressions/$target/." "$work/corpus/" -r 2>/dev/null || true
args=(-max_total_time="$seconds" -timeout=10 -artifact_prefix="$work/artifacts/")
if [[ -f "$root/tests/fuzz/$target.dict" ]]; then
  args+=(-dict="$root/tests/fuzz/$target.dict")
fi

echo "fuzz.sh: $target for ${seconds}s in $work"
status=0
(cd "$work" && "$fuzzer" "${args[@]}" "$@" "$work/corpus") >"$work/fuzz.log" 2>&1 || status=$?
# With -jobs/-workers libFuzzer writes each job's output to fuzz-<n>.log
# (and copies it to its own output).
logs=()
for f in "$work"/fuzz-*.log; do [[ -e "$f" ]] && logs+=("$f"); done
[[ ${#logs[@]} -eq 0 ]] && logs=("$work/fuzz.log")

for log in "${logs[@]}"; do
  # The last status line ("#N ... cov: C ft: F corp: ... exec/s: E ...") holds the totals.
  last="$(grep -a -E '^#[0-9]+' "$log" | tail -n 1 || true)"
  [[ -n "$last" ]] && echo "fuzz.sh: $(basename "$log"): $last"
  grep -a -E 'Done [0-9]+ runs' "$log" | tail -n 1 | sed 's/^/fuzz.sh: /' || true
done

found=0
for f in "$work"/artifacts/*; do
  [[ -e "$f" ]] || continue
  echo "fuzz.sh: FOUND $(basename "$f" | cut -d- -f1): $f"
  found=1
done
if [[ $found -ne 0 || $status -ne 0 ]]; then
  echo "fuzz.sh: the fuzzer failed (exit $status); see ${logs[*]}" >&2
  grep -a -h -m 5 -E 'ERROR|fuzz check failed|runtime error|SUMMARY' "${logs[@]}" >&2 || true
  exit 1
fi

if [[ $merge -eq 1 ]]; then
  merged="$work/merged"
  mkdir -p "$merged"
  # -use_counters=0: keep one input per covered edge, not per hit-count bucket
  # (a third of the files for the same edges).
  "$fuzzer" -merge=1 -use_counters=0 "$merged" "$root/tests/fuzz/corpus/$target" "$work/corpus" \
    >"$work/merge.log" 2>&1
  mkdir -p "$root/tests/fuzz/corpus/$target"
  find "$root/tests/fuzz/corpus/$target" -maxdepth 1 -type f -delete
  cp "$merged"/. "$root/tests/fuzz/corpus/$target/" -r
  echo "fuzz.sh: merged corpus: $(find "$merged" -type f | wc -l) files," \
    "$(cat "$merged"/* | wc -c) bytes in tests/fuzz/corpus/$target"
fi
echo "fuzz.sh: no findings"
