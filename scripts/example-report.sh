#!/usr/bin/env bash
# Regenerates docs/examples/: a report of one run of the emulated bench
# (configs/qemu.yaml, every kernel whose source is in the kernel cache or can
# be fetched, two loads per job), as a user would make it:
#
#   rtosbench run --matrix configs/qemu.yaml --repeat 2 --fetch-kernels
#   rtosbench report RUN --md ... --html ... --csv ...
#
# The run directory goes to a temporary directory and is removed; the
# samples CSV (tens of MB) is not kept. Needs the host tool built
# (scripts/build.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${RTOSBENCH_BUILD_DIR:-$root/build}/src/rtosbench
[[ -x $bin ]] || { echo "example-report: $bin not built (run scripts/build.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"
# Exit 1 is expected while a kernel's capture is invalid (TencentOS-tiny's
# mutex_pi defect, docs/kernels.md), exit 2 while a kernel has no source
# (PX5 is commercial: SOURCE_MISSING unless --kernel-source px5=PATH); the
# report shows both. Anything else stops here.
rc=0
"$bin" run --matrix configs/qemu.yaml --out "$work/runs" --repeat 2 --fetch-kernels --no-history || rc=$?
[[ $rc -le 2 ]] || { echo "example-report: run failed (exit $rc)" >&2; exit "$rc"; }
run=$(ls -d "$work"/runs/*/ | head -n 1)
out=$root/docs/examples
mkdir -p "$out/csv"
"$bin" report "$run" --md "$out/emulated-report.md" --html "$out/emulated-report.html" --csv "$work/csv"
cp "$work/csv/summary.csv" "$work/csv/footprint.csv" "$out/csv/"
echo "example report in $out"
