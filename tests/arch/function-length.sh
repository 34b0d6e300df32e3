#!/usr/bin/env bash
# Issue 27's proportion rule, checked: no function in src/ is longer than
# MAX lines (from its first line to its closing brace, as universal-ctags
# reports a function's extent). Fails with each function over the limit, and
# also when ctags finds implausibly few functions (its output not understood).
#
#   function-length.sh REPO_ROOT [MAX]
set -euo pipefail
root=$1 max=${2:-100}
command -v ctags >/dev/null || {
  echo "SKIPPED: universal-ctags is not installed (scripts/setup-deps.sh all)"
  exit 77
}
ctags --version | grep -q 'Universal Ctags' || {
  echo "SKIPPED: ctags is not universal-ctags"
  exit 77
}
table=$(cd "$root" && ctags --languages=C++ --langmap=C++:+.h --kinds-C++=f --fields=+ne -f - -R src |
  awk -F'\t' '{ l = ""; e = ""
    for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) }
    if (l != "" && e != "") print e - l + 1 "\t" $2 ":" l "\t" $1 }')
count=$(wc -l <<<"$table")
((count >= 500)) || {
  echo "FAIL: ctags found only $count functions with an extent in src/" >&2
  exit 1
}
over=$(awk -F'\t' -v max="$max" '$1 > max' <<<"$table" | sort -rn)
if [[ -n $over ]]; then
  echo "FAIL: functions in src/ longer than $max lines (lines, place, name):" >&2
  echo "$over" >&2
  exit 1
fi
longest=$(awk -F'\t' '$1 > n { n = $1; l = $0 } END { print l }' <<<"$table")
echo "$count functions in src/, none over $max lines; the longest: $longest"
