#!/usr/bin/env bash
# Regenerates the golden files of the `rtosbench run` tests from the current
# binary. Review the diff before committing: a golden file states what users
# see.
#   scripts/regen-run-golden.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${RTOSBENCH_BUILD_DIR:-$root/build}}
rb=$build/src/rtosbench
cd "$root/tests/data/matrix"
"$rb" run --matrix malformed.yaml --out /nonexistent-never-created 2>malformed.expected >/dev/null && {
  echo "regen-run-golden: malformed.yaml was accepted" >&2
  exit 1
}
# The board list is the tree's: the golden file says BOARDS (tests/run/e2e/malformed.sh).
boards=$(find "$root/firmware/boards" -mindepth 2 -maxdepth 2 -name board.cmake | sed 's|/board.cmake$||; s|.*/||' | LC_ALL=C sort | paste -sd, | sed 's/,/, /g')
sed -i "s/(allowed: $boards)/(allowed: BOARDS)/" malformed.expected
echo "wrote tests/data/matrix/malformed.expected"
