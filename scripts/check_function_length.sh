#!/usr/bin/env bash
# Fails when a function in lib/ or apps/ is longer than 60 lines, the house rule
# (README.md, "Two commands"). Lines are counted by Debian's pmccabe: from the
# function's first line through its closing brace (pmccabe's column 5).
#
#   scripts/check_function_length.sh [PATH...]   (default: lib apps)
#
# PATHs are files or folders, relative to the repository root or absolute.
# Exit 0: no function is too long. Exit 1: each one too long is printed as
#   lib/format/npy.cc:231: dsanalyze::NpyArray::Open is 62 lines (limit 60)
# and so is each file pmccabe could not parse, since its functions would go
# unmeasured. Exit 2: pmccabe is not installed (scripts/setup.sh installs it).
#
# pmccabe predates C++11: `noexcept`, `override` or `final` after a parameter
# list end its parse of the file. The files are measured from a scratch copy
# with those words blanked, which keeps every line where it was.
set -euo pipefail
limit=60
cd "$(dirname "$0")/.."
if ! command -v pmccabe > /dev/null; then
  echo "check_function_length: pmccabe is not installed (apt-get install pmccabe," \
    "or run scripts/setup.sh)" >&2
  exit 2
fi

paths=("$@")
((${#paths[@]})) || paths=(lib apps)
mapfile -t files < <(find "${paths[@]}" -type f \( -name '*.cc' -o -name '*.cpp' -o -name '*.h' \) |
  sort)
if ((${#files[@]} == 0)); then
  echo "check_function_length: no C++ sources under ${paths[*]}" >&2
  exit 2
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/function-length.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
copies=()
for f in "${files[@]}"; do
  mkdir -p "$scratch/root/$(dirname "$f")"
  sed -E 's/\b(noexcept|override|final)\b//g' "$f" > "$scratch/root/$f"
  copies+=("$scratch/root/$f")
done

rc=0
pmccabe "${copies[@]}" > "$scratch/functions" 2> "$scratch/errors" || rc=$?
strip="s|$scratch/root/||g"
if [[ -s "$scratch/errors" || $rc -ne 0 ]]; then
  # '"file", line N: problem' -> 'file:N: pmccabe cannot parse this: problem'
  sed -e "$strip" -e 's/^"\([^"]*\)", line \([0-9]*\): /\1:\2: pmccabe cannot parse this: /' \
    "$scratch/errors" >&2
  echo "check_function_length: pmccabe (exit $rc) could not parse the files above," \
    "so their functions go unmeasured" >&2
  exit 1
fi

# Columns: complexity, complexity, statements, first line, lines, file(line): name.
sed -e "$strip" "$scratch/functions" | awk -F'\t' -v limit="$limit" -v files="${#files[@]}" '
  {
    split($6, at, "[(]|[)]: ")  # "file(line): name" -> file, line, name
    if ($5 > limit) {
      printf "%s:%s: %s is %d lines (limit %d)\n", at[1], at[2], at[3], $5, limit
      long++
    }
  }
  END {
    if (long) exit 1
    printf "check_function_length: %d functions in %d files, none longer than %d lines\n",
      NR, files, limit
  }'
