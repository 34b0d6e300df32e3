#!/usr/bin/env bash
# Configures and builds the benchmark firmware out of tree.
#
#   scripts/fw-build.sh BUILD_DIR [-DRB_PORT=bare -DRB_BOARD=qemu-netduinoplus2 ...]
#
# Options are the firmware's CMake cache variables (docs/firmware.md). The
# outputs land in BUILD_DIR: rtosbench-fw.elf, .map, .bin, size.txt, size.json.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [-DRB_...=VALUE ...]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
cmake -S "$root/firmware" -B "$build" "${generator[@]}" "$@"
cmake --build "$build"
cat "$build/size.txt"
