#!/usr/bin/env bash
# Prints, one per line, the series a board declares the bench itself can move
# between two runs of one image (its RB_BOARD_UNSTABLE_<series> lines,
# firmware/boards/<board>/board.cmake; on QEMU, sleep_wake's WFI phase).
# Tests that require two runs to be identical leave exactly these out, as
# `rtosbench run` does when it judges repeated loads (docs/run.md).
#
#   tests/board-unstable.sh REPO_ROOT BOARD
set -euo pipefail
f=$1/firmware/boards/$2/board.cmake
[[ -r $f ]] || { echo "board-unstable.sh: no board file $f" >&2; exit 1; }
# and the files of firmware/boards/ it includes (common/qemu-stm32.cmake)
files=("$f")
while read -r inc; do files+=("$(dirname "$f")/$inc"); done < \
  <(sed -nE 's|^include\("\$\{RB_BOARD_DIR\}/([A-Za-z0-9_./-]+\.cmake)"\).*|\1|p' "$f")
sed -nE 's/^set\(RB_BOARD_UNSTABLE_([a-z0-9_]+) .*/\1/p' "${files[@]}"
