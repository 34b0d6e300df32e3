#!/usr/bin/env bash
# Regenerates the golden files of the report tests (tests/data/report/golden/:
# the Markdown report, the regress JUnit XML and Markdown summary) from the
# fixture runs the unit tests build. Review the diff before committing: a
# golden file states what users and CI systems see.
#   scripts/regen-golden-reports.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${RTOSBENCH_BUILD_DIR:-$root/build}}
cmake --build "$build" --target rtosbench_unit_tests -j2
RTOSBENCH_REGEN_GOLDEN=1 "$build/tests/rtosbench_unit_tests" --gtest_filter='ReportRender.*Golden*:ReportEdges.Table*'
# Check that the files now match (a second run without regeneration).
"$build/tests/rtosbench_unit_tests" --gtest_filter='ReportRender.*Golden*:ReportEdges.Table*' >/dev/null
git -C "$root" status --short -- tests/data/report/golden
