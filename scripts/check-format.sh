#!/usr/bin/env bash
# Fails, listing the files, when a C or C++ file of the repository differs
# from what clang-format makes of it (.clang-format at the top). With --fix,
# formats them in place. Part of the README's test command (scripts/test.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cpp' | grep -v '^tests/data/')
if [[ ${1:-} == --fix ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if ((${#bad[@]})); then
  printf 'check-format: %d of %d files differ from .clang-format (scripts/check-format.sh --fix):\n' "${#bad[@]}" "${#files[@]}" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format"
