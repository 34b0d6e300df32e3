#!/usr/bin/env bash
# The main job: the emulated bench. Installs what is missing, builds the host
# tool, then runs configs/qemu.yaml (firmware build, QEMU, capture, verify,
# results under runs/). Extra arguments go to `rtosbench run`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup-deps.sh"
"$root/scripts/build.sh"
build=${RTOSBENCH_BUILD_DIR:-$root/build}
cd "$root"
# --fetch-kernels clones a kernel missing from the cache at its pinned tag.
exec "$build/src/rtosbench" run --matrix configs/qemu.yaml --out runs --fetch-kernels "$@"
