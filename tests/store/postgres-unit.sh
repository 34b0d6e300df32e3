#!/usr/bin/env bash
# Runs the unit tests named *Postgres* in one process (one server for all):
#   postgres-unit.sh UNIT_TEST_BINARY
# Exit 77 with the reason when the PostgreSQL server binaries are absent;
# past that, a server that does not start fails the tests (never a skip).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
probe=$(mktemp -d /tmp/rtosbench-pgprobe-XXXXXX)
trap 'rm -rf "$probe"' EXIT
set +e
why=$(bash "$here/postgres-server.sh" stop "$probe" 2>&1)
rc=$?
set -e
if [[ $rc == 77 ]]; then
  echo "$why"
  exit 77
fi
RTOSBENCH_REQUIRE_POSTGRES=1 "$1" --gtest_filter='*Postgres*'
