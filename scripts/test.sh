#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is the README's
# test command and what .ci/run calls.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
RTOSBENCH_WITH_BROWSER=1 "$root/scripts/setup-deps.sh"
"$root/scripts/build.sh" -DRTOSBENCH_FUZZ=ON
# Kernel ports are tested against the checkouts in rtosbench's kernel cache;
# without them those tests are skipped and say why (CI has no network).
eval "$("$root/scripts/kernel-env.sh")"
cd "${RTOSBENCH_BUILD_DIR:-$root/build}"
ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@"
