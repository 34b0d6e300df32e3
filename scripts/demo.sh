#!/usr/bin/env bash
# The main job: the emulated bench. Installs what the emulated bench needs
# (scripts/setup-deps.sh demo), builds the host tool alone (no tests), then runs configs/qemu.yaml (kernel fetch,
# firmware builds, QEMU, capture, verify, results under runs/). Each phase
# announces itself; the run prints every job as it starts and finishes.
# Extra arguments go to `rtosbench run`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RTOSBENCH_BUILD_DIR:-$root/build}
t0=$SECONDS
phase() { printf 'demo: [%s] %s (at %d:%02d)\n' "$1" "$2" $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)); }

phase 1/3 "packages for the emulated bench (scripts/setup-deps.sh demo)"
"$root/scripts/setup-deps.sh" demo
phase 2/3 "building the host tool into $build (the rtosbench target, no tests)"
# The same tool the tests build, without the tests (their GoogleTest is a
# test package).
"$root/scripts/build.sh" -DRTOSBENCH_TESTS=OFF
phase 3/3 "running configs/qemu.yaml: kernel sources, firmware builds, QEMU runs"
cd "$root"
# --fetch-kernels clones a kernel missing from the cache at its pinned tag.
exec "$build/src/rtosbench" run --matrix configs/qemu.yaml --out runs --fetch-kernels "$@"
