#!/usr/bin/env bash
# Runs configs/tokens_vocab.json and configs/plugin.json exactly as written,
# from a scratch directory laid out like the repository's (build/ holding the
# example plugin, tests/golden/ the reference tokens), under mpiexec -n $NP. Each
# output must pass `dsanalyze verify`; tokens_vocab's vocab_rarity must equal
# the golden one (the other golden checks are vocab_golden_test.sh).
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}" "${GOLDEN:?}" "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$work/repo"
ln -s "$SOURCE_DIR/tests" "$work/repo/tests"
ln -s "$BUILD_DIR" "$work/repo/build"
cd "$work/repo"
for name in tokens_vocab plugin; do
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$SOURCE_DIR/configs/$name.json" --quiet \
    || fail "$name: dsanalyze exited $?"
  "$DSANALYZE" verify "out/$name" > /dev/null || fail "$name: dsanalyze verify found a problem"
done
for f in vocab_rarity_sample_to_metric.bin vocab_rarity_index_to_sample.bin; do
  cmp -s "out/tokens_vocab/vocab_rarity/$f" "$GOLDEN/tokens/dda/vocab_rarity/$f" \
    || fail "tokens_vocab: $f differs from the golden one"
done
[[ -f out/plugin/token_histogram/token_histogram_metric_value.bin ]] \
  || fail "plugin: no token_histogram output"
echo "configs (tokens_vocab, plugin) on $NP ranks: all checks passed"
