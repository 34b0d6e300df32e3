#!/usr/bin/env bash
# Prints the harness hash the firmware reports as CONFIG harness=: the first
# 16 hex digits of SHA-256 over "<path>\n<sha256 of file>\n" for every
# firmware/harness/**/*.c and *.h, paths relative to firmware/harness/, in
# byte order. firmware/CMakeLists.txt computes the same with file(SHA256).
#
#   scripts/fw-harness-hash.sh [HARNESS_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/firmware/harness}
cd "$dir"
find . -type f \( -name '*.c' -o -name '*.h' \) | sed 's|^\./||' | LC_ALL=C sort |
  while IFS= read -r f; do
    printf '%s\n%s\n' "$f" "$(sha256sum "$f" | cut -c1-64)"
  done | sha256sum | cut -c1-16
