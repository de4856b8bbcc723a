#!/usr/bin/env bash
# Runs setup if needed, then the whole test suite with ctest. Exits non-zero on
# any failure.
#
#   scripts/test.sh [--sanitize] [ctest args...]
#
# --sanitize runs it on the AddressSanitizer + UndefinedBehaviorSanitizer build
# (build-asan/, CMake option DSANALYZE_SANITIZE). Any memory error, undefined
# behaviour or leak in any process the suite starts (mpiexec passes the options
# below on to every rank) makes it exit non-zero, failing its test. ASan and
# LSan reports also go to build-asan/sanitizer-reports/ and fail the run at the
# end, even from a run the test expected to fail (a killed rank's peers). UBSan
# reports stay on the test's stderr: GCC's UBSan ignores log_path.
# The sanitizer suite runs each MPI test at 2 ranks (the MPI suites of
# mpi_tests at 3), and leaves out its other rank counts, labelled
# extra_ranks (tests/CMakeLists.txt): every test runs in the plain suite, every
# MPI path with a peer under the sanitizers.
# Extra arguments go to ctest, e.g. -LE cluster or -R fuzz. At the end it
# prints how long the setup and build, and the suite took.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build
setup_args=()
sanitize=0
if [[ "${1:-}" == "--sanitize" ]]; then
  shift
  sanitize=1
  build_dir=build-asan
  setup_args=(--sanitize)
fi
start=$SECONDS
scripts/setup.sh "${setup_args[@]}"
built=$SECONDS
cd "$build_dir"

reports="$PWD/sanitizer-reports"
if ((sanitize)); then
  rm -rf "$reports"
  mkdir -p "$reports"
  # Leak detection is on. The one leak outside our code is hwloc's PCI plugin
  # (MPI_Init -> MPICH's topology load): it is dlclose'd before exit, so a
  # suppression could name it only with slow unwinding (twice the suite time).
  # MPICH on one node does not need PCI discovery, so it is switched off.
  export HWLOC_COMPONENTS=-pci
  export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:detect_stack_use_after_return=1:log_path=$reports/asan"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fi

# Every test makes its files under TMPDIR and removes them. The suite gets a
# TMPDIR of its own (a new one each run: the docs' tests run this script inside
# the suite), and a file left there fails a run in which every test passed.
suite_tmp=$(mktemp -d "$PWD/suite-tmp.XXXXXX")
export TMPDIR=$suite_tmp

ctest_args=(--output-on-failure -j "$(nproc)" --timeout 600)
((sanitize)) && ctest_args+=(-LE 'extra_ranks|browser')
rc=0
ctest "${ctest_args[@]}" "$@" || rc=$?
if ((rc == 0)) && [[ -n "$(ls -A "$suite_tmp")" ]]; then
  echo "test.sh: the suite left files in its TMPDIR:" >&2
  ls -A "$suite_tmp" >&2
  rc=1
fi
rm -rf "$suite_tmp"
if ((sanitize)) && compgen -G "$reports/*" > /dev/null; then
  for f in "$reports"/*; do
    echo "===== $f" >&2
    cat "$f" >&2
  done
  echo "test.sh: $(ls "$reports" | wc -l) sanitizer report(s), see above" >&2
  rc=1
fi
echo "test.sh: $build_dir: setup and build $((built - start)) s, suite $((SECONDS - built)) s"
exit "$rc"
