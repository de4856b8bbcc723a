#!/usr/bin/env bash
# seqlen alone on a `documents` dataset reads no page of the token .bin but
# those of the report's token preview: its lengths come from the .idx, and the
# preview reads the first tokens of the metric's 10 extreme samples, at most 2
# pages each (not the device's read-ahead window around them). The .bin is
# evicted from the page cache, the job runs under mpiexec -n $NP, and mincore
# must then find at most 20 of its pages resident. A control run of total_vocab_freq (which reads every token) must
# find (nearly all of) them resident, which shows the probe would see a read.
# Skips (77) where pages cannot be evicted (e.g. the scratch dir is on tmpfs).
# Env: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}" "${SOURCE_DIR:?}"
probe="python3 $SOURCE_DIR/tests/dataset/page_cache.py"
work=$(mktemp -d "${BUILD_DIR:-/tmp}/no-bin-read.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$DSANALYZE" generate tok --documents 20000 --vocab-size 30000 --min-length 100 \
  --max-length 400 --seed 3 >/dev/null
run() {  # NAME METRIC PARAMS_JSON
  printf '{"dataset": {"type": "documents", "prefixes": ["tok"]},
           "metrics": [{"name": "%s", "metric": "%s", "params": %s}],
           "output": {"path": "out-%s"}, "map": {"threads": 2}}' "$1" "$2" "$3" "$1" > "$1.json"
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$1.json" --quiet || fail "$1: exited $?"
}

pages=$(( ($(stat -c %s tok.bin) + 4095) / 4096 ))
$probe drop tok.bin
left=$($probe resident tok.bin)
if [[ $left -ne 0 ]]; then
  echo "SKIP: $left of $pages .bin pages stay cached after eviction (tmpfs?)"
  exit 77
fi

run seqlen seqlen "{}"
read_pages=$($probe resident tok.bin)
((read_pages <= 20)) || fail "seqlen brought $read_pages of $pages .bin pages into memory"
seqlen_pages=$read_pages
[[ -s out-seqlen/seqlen/seqlen_sample_to_metric.bin ]] || fail "seqlen wrote no output"

# The control shows the probe sees reads. It asks for 90% of the pages, not
# all: on a busy machine the kernel may already have reclaimed a few of them
# again (seen in CI: 2454 of 2458 left), which says nothing about the probe.
run vocab total_vocab_freq '{"vocab_size": 30000}'
read_pages=$($probe resident tok.bin)
((read_pages * 10 >= pages * 9)) ||
  fail "control: total_vocab_freq left only $read_pages of $pages pages resident"
echo "ok: seqlen read $seqlen_pages of $pages .bin pages; total_vocab_freq left $read_pages resident"
