#!/usr/bin/env bash
# The repository stands on its own (tests/golden/README.md, docs/format.md):
# - no tracked file refers to the workspace folder beside the clone (".."
#   followed by "/shared"), so a fresh clone with nothing beside it builds,
#   runs and tests;
# - the top level holds only the project's layout (README.md): CMakeLists.txt,
#   README.md, apps/, lib/, configs/, tests/, scripts/, docs/ and dot-files,
#   so a build or test artifact (ctest's Testing/) is never committed (git
#   checkouts only: an exported tree may hold a user's out/);
# - tests/golden stores each distinct file once, and the build's golden tree
#   (GOLDEN) holds every stored and every same_bytes.txt file, byte-identical
#   to the one it stands for.
# env: SOURCE_DIR, GOLDEN
set -euo pipefail
: "${SOURCE_DIR:?}" "${GOLDEN:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$SOURCE_DIR"

if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else  # an exported tree without .git: every file but build outputs
  mapfile -t files < <(find . -path './build*' -prune -o -type f -print | sed 's#^\./##')
fi
((${#files[@]} > 100)) || fail "found only ${#files[@]} files in $SOURCE_DIR"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then  # tracked files only
  top=$(printf '%s\n' "${files[@]}" | cut -d/ -f1 | sort -u \
    | grep -vxE 'CMakeLists\.txt|README\.md|apps|lib|configs|tests|scripts|docs|\..*' || true)
  [[ -z "$top" ]] || fail "tracked at the top level, outside the project's layout: $top"
fi
pattern='\.\./shared'
if hits=$(grep -In -- "$pattern" "${files[@]}" 2>/dev/null); then
  echo "$hits" >&2
  fail "tracked files refer to a folder outside the repository (above)"
fi

cd tests/golden
dupes=$(find . -type f ! -name '*.md' ! -name same_bytes.txt -exec sha256sum {} + \
  | sort | uniq -w64 -D)
[[ -z "$dupes" ]] || fail "tests/golden stores the same bytes twice (list one in same_bytes.txt):
$dupes"
stored=$(find . -type f | sed 's#^\./##' | sort)
count=0
while read -r rel; do
  cmp -s "$rel" "$GOLDEN/$rel" || fail "$GOLDEN/$rel differs from tests/golden/$rel"
  count=$((count + 1))
done <<< "$stored"
while read -r rel eq src; do
  [[ "$eq" == "=" && -f "$src" ]] || fail "same_bytes.txt: '$rel $eq $src' names no stored file"
  [[ ! -e "$rel" ]] || fail "same_bytes.txt: $rel is stored too"
  cmp -s "$src" "$GOLDEN/$rel" || fail "$GOLDEN/$rel differs from tests/golden/$src"
  count=$((count + 1))
done < same_bytes.txt
echo "self-contained: ${#files[@]} tracked files, none refers outside the repository; $count golden files laid out"
