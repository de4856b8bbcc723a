#!/usr/bin/env bash
# output.files under mpiexec -n $NP: each chosen subset writes exactly its
# files, byte-identical to the same files of an all-files run; summary.json
# records the choice; verify passes, names the skipped files and counts the
# samples (from summary.json without sample_to_metric); compare of
# the full and the partial analysis finds every common file equal and names
# the rest as skipped by choice. An explicit list of all files is the default.
set -euo pipefail
: "${NP:?}" "${MPIEXEC:?}" "${DSANALYZE:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

run() {  # run SAVE [FILES_JSON]
  local files=""
  [[ $# -gt 1 ]] && files=', "files": '"$2"
  printf '%s\n' '{"dataset": {"type": "synthetic_mod", "num_samples": 5000, "modulus": 300},
    "metrics": [{"name": "mod", "metric": "value"}, {"name": "batch_sum", "metric": "sum"}],
    "output": {"path": "'"$1"'"'"$files"'}, "map": {"batch_size": 256}}' > "$work/config.json"
  "$MPIEXEC" -n "$NP" "$DSANALYZE" --config "$work/config.json" --quiet \
    || fail "dsanalyze exited $? for files $files"
}
pairs() { (cd "$1" && find . -name '*.bin' -o -name '*.idx' | sort | tr '\n' ' '); }

run "$work/full"
all=$(pairs "$work/full")
run "$work/explicit" '["index_to_sample", "index_to_metric", "sample_to_metric",
  "percentile_merged", "metric_value", "reports"]'
[[ "$(pairs "$work/explicit")" == "$all" ]] || fail "an explicit full list wrote other files"
for f in $all; do cmp -s "$work/full/$f" "$work/explicit/$f" || fail "explicit full list: $f differs"; done
! grep -q '"files"' "$work/explicit/summary.json" || fail "a full list is recorded in summary.json"

check() {  # check FILES_JSON EXPECTED_PAIRS...
  local files=$1; shift
  local save="$work/part" want="" f
  rm -rf "$save"
  run "$save" "$files"
  for f in "$@"; do want+="./$f.bin ./$f.idx "; done
  want=$(tr ' ' '\n' <<<"$want" | sed '/^$/d' | sort | tr '\n' ' ')
  [[ "$(pairs "$save")" == "$want" ]] || fail "$files wrote: $(pairs "$save"); expected: $want"
  for f in $want; do cmp -s "$work/full/$f" "$save/$f" || fail "$files: $f differs from the full run"; done
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["files"]==json.loads(sys.argv[2]), s["files"]' \
    "$save/summary.json" "$files" || fail "$files: summary.json does not record the choice"
  "$DSANALYZE" verify "$save" > "$work/verify.txt" || fail "verify $files exited $?: $(cat "$work/verify.txt")"
  grep -q "all invariants hold for 2 metric(s)" "$work/verify.txt" || fail "verify: $(cat "$work/verify.txt")"
  # The counts come from the files written, else from summary.json, else from
  # index_to_sample (each id once, a row per value): never "?".
  if [[ "$files" == *index_to_sample* || "$files" == *sample_to_metric* ]]; then
    grep -q "^mod (single_value_per_sample, 5000 samples, " "$work/verify.txt" \
      || fail "verify $files does not count the samples: $(cat "$work/verify.txt")"
  fi
  if [[ "$files" == *index_to* ]]; then
    grep -q "^mod (single_value_per_sample, .* 300 distinct values)" "$work/verify.txt" \
      || fail "verify $files does not count the values: $(cat "$work/verify.txt")"
  fi
  local skipped
  skipped=$(for f in $all; do [[ " $want " == *" $f "* ]] || echo "${f%.*}"; done | sort -u | sed 's|^\./||')
  for f in $skipped; do
    grep -qx "  skipped by choice (output.files): $f" "$work/verify.txt" || fail "verify does not name $f: $(cat "$work/verify.txt")"
  done
  "$DSANALYZE" compare "$work/full" "$save" > "$work/compare.txt" || fail "compare full/partial exited $?: $(cat "$work/compare.txt")"
  for f in $skipped; do
    grep -q "skipped by choice: $f: B chose not to write it" "$work/compare.txt" || fail "compare does not name $f: $(cat "$work/compare.txt")"
  done
  grep -q " 0 different, $(wc -w <<<"$skipped") skipped by choice" "$work/compare.txt" || fail "compare: $(cat "$work/compare.txt")"
}

zero_stages() {  # zero_stages STAGE...: those stages took no time (were skipped)
  python3 -c 'import json,sys; t={x["stage"]: x["max_seconds"] for x in json.load(open(sys.argv[1]))["timings"]}
bad=[s for s in sys.argv[2:] if t[s] != 0]; assert not bad, bad' "$work/part/summary.json" "$@"
}
check '["sample_to_metric", "reports"]' mod/mod_sample_to_metric
zero_stages local_sort splitters exchange merge write || fail "sorted without an index file"
check '["index_to_metric", "reports"]' mod/mod_index_to_metric
zero_stages sample_to_metric || fail "streamed sample_to_metric without choosing it"
check '["index_to_sample", "percentile_merged", "reports"]' \
  mod/mod_index_to_sample mod/mod_index_to_sample_percentile_merged
check '["index_to_sample", "index_to_metric", "reports"]' mod/mod_index_to_sample mod/mod_index_to_metric
[[ -f "$work/part/mod/mod_histogram.svg" ]] || fail "no histogram with index_to_metric and index_to_sample"
[[ ! -f "$work/part/curriculum_config.json" ]] || fail "curriculum_config.json without percentile_merged"
# Without sample_to_metric, verify takes N from summary.json for the sample dtype.
python3 -c 'import json,sys; p=sys.argv[1]; s=json.load(open(p)); s["metrics"]["mod"]["samples"]=70000; json.dump(s,open(p,"w"))' \
  "$work/part/summary.json"
status=0; "$DSANALYZE" verify "$work/part" > "$work/verify.txt" || status=$?
[[ $status == 1 ]] && grep -q "mod_index_to_sample: dtype is uint16, expected uint32" "$work/verify.txt" \
  || fail "verify with N = 70000 in summary.json exited $status: $(cat "$work/verify.txt")"
check '["metric_value", "reports"]' batch_sum/batch_sum_metric_value
[[ ! -f "$work/part/mod/mod_histogram.svg" ]] || fail "a histogram without index files"
grep -q '"statistics": "not computed' "$work/part/summary.json" || fail "summary.json does not say why"

# That run left S/mod/ empty (none of its files chosen): a rerun without
# output.files replaces it like any other entry of the previous analysis.
[[ -d "$work/part/mod" && -z "$(ls -A "$work/part/mod")" ]] || fail "no empty mod/ folder"
cp -r "$work/part" "$work/part_kept"
run "$work/part_kept"
"$DSANALYZE" verify "$work/part_kept" > /dev/null || fail "verify after the rerun exited $?"
rm -rf "$work/part_kept"

# The other way round: A partial, B full.
"$DSANALYZE" compare "$work/part" "$work/full" > "$work/compare.txt" || fail "compare partial/full exited $?"
grep -q "skipped by choice: mod/mod_index_to_metric: A chose not to write it" "$work/compare.txt" \
  || fail "compare: $(cat "$work/compare.txt")"
echo "chosen files: ok ($NP rank(s))"
