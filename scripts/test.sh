#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. This is the README's
# test command and what .ci/run calls. Three passes:
#   1. every C and C++ file matches .clang-format (scripts/check-format.sh);
#   2. the whole suite on the normal build (unit, end-to-end, firmware, kernel
#      ports, fuzz targets run for a bounded time);
#   3. the host tests again in an AddressSanitizer + UndefinedBehaviorSanitizer
#      build (build-asan/): every unit test and every end-to-end test of the
#      host tool; a sanitizer report fails the test. Kernel-port and fuzz
#      tests are not repeated there (the port tests exercise the firmware, the
#      fuzz targets are sanitized already).
# Extra arguments go to the ctest of pass 2.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
RTOSBENCH_WITH_BROWSER=1 "$root/scripts/setup-deps.sh" all
"$root/scripts/check-format.sh"
# On in build/ even after scripts/demo.sh configured it without the tests.
"$root/scripts/build.sh" -DRTOSBENCH_TESTS=ON -DRTOSBENCH_FUZZ=ON
build=${RTOSBENCH_BUILD_DIR:-$root/build}
# Kernel ports are tested against the checkouts in rtosbench's kernel cache
# at the pins of their kernel.yaml; without them those tests are skipped and
# say why (CI has no network).
eval "$("$build/src/rtosbench" kernels env)"
(cd "$build" && ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@")

asan=${RTOSBENCH_ASAN_BUILD_DIR:-$root/build-asan}
RTOSBENCH_BUILD_DIR=$asan "$root/scripts/build.sh" -DRTOSBENCH_TESTS=ON -DRTOSBENCH_SANITIZE=ON -DRTOSBENCH_FUZZ=OFF
cd "$asan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure --timeout 900 -j "$(nproc)" -LE 'ports|fuzz|firmware'
