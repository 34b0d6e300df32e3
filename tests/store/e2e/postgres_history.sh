#!/usr/bin/env bash
# End to end, the PostgreSQL history with the real binary and the emulated
# runs of report.e2e.runs (the real firmware's bare port under QEMU):
#   postgres_history.sh RTOSBENCH REPORT_E2E_WORK
# Starts its own server (tests/store/postgres-server.sh; exit 77 with the
# reason when the server binaries are absent). Checks: two processes
# importing two runs at once both land and both show in `history runs`; two
# processes importing the same run at once record it once; two `rtosbench
# run`s at once, recording into the history named by RTOSBENCH_HISTORY (a
# URL), both show; the trend over PostgreSQL is the trend over SQLite of the
# same runs; a URL's password is never printed.
# One line per check; stops at the first failure.
set -euo pipefail
bin=$1 work=$2
here=$(cd "$(dirname "$0")/.." && pwd)
data=$here/../data/report/e2e

source "$(dirname "$0")/../../lib/expect.sh"

A=$(run_dir a) B=$(run_dir b) M=$(run_dir m)
pg=$(mktemp -d /tmp/rtosbench-pg-e2e-XXXXXX)
T=$(mktemp -d)
cleanup() {
  bash "$here/postgres-server.sh" stop "$pg" >/dev/null 2>&1 || true
  rm -rf "$pg" "$T"
}
trap cleanup EXIT
set +e
server=$(bash "$here/postgres-server.sh" start "$pg" 2>&1)
rc=$?
set -e
if [[ $rc == 77 ]]; then
  echo "$server"
  exit 77
fi
[[ $rc == 0 ]] || { echo "$server" >&2; fail "the PostgreSQL server did not start"; }
value() { sed -n "s/^$1=//p" <<<"$server"; }
url=$(value url) password_url=$(value password_url) password=$(value password)
[[ -n $url && -n $password_url ]] || fail "no URL from postgres-server.sh"
ok "server started: $url"
# Nothing here may land in the user's own history.
export RTOSBENCH_HISTORY=$T/default.sqlite

# Two processes at once, two runs: both land.
set +e
"$bin" history --db "$url" import "$A" >"$T/a.out" 2>&1 &
pa=$!
"$bin" history --db "$url" import "$B" >"$T/b.out" 2>&1 &
pb=$!
wait $pa
ra=$?
wait $pb
rb=$?
set -e
[[ $ra == 0 && $rb == 0 ]] || { cat "$T/a.out" "$T/b.out" >&2; fail "concurrent imports exited $ra and $rb"; }
contains "$(cat "$T/a.out")" "recorded $(basename "$A") (2 jobs"
contains "$(cat "$T/b.out")" "recorded $(basename "$B") (2 jobs"
ok "two imports from two processes at once both exited 0"
expect_status 0 "$bin" history --db "$url" runs
contains "$out" "$(basename "$A")"
contains "$out" "$(basename "$B")"
[[ $(grep -c -- "-report-e2e" <<<"$out") == 2 ]] || { echo "$out"; fail "history runs does not show exactly the two runs"; }
ok "both runs show in history runs"

# Two processes at once, the same run: recorded once, the other unchanged.
set +e
"$bin" history --db "$url" import "$M" >"$T/m1.out" 2>&1 &
p1=$!
"$bin" history --db "$url" import "$M" >"$T/m2.out" 2>&1 &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
set -e
[[ $r1 == 0 && $r2 == 0 ]] || { cat "$T/m1.out" "$T/m2.out" >&2; fail "concurrent imports of one run exited $r1 and $r2"; }
both=$(cat "$T/m1.out" "$T/m2.out")
[[ $(grep -c "^recorded $(basename "$M")" <<<"$both") == 1 &&
  $(grep -c "^re-recorded (unchanged) $(basename "$M")" <<<"$both") == 1 ]] ||
  { echo "$both"; fail "one run imported twice at once was not recorded once and found unchanged once"; }
ok "the same run imported twice at once: recorded once, unchanged once"
expect_status 0 "$bin" history --db "$url" runs --json
[[ $(grep -c '"run_id"' <<<"$out") == 3 ]] || { echo "$out"; fail "expected three runs"; }

# The same queries: the trend over PostgreSQL is the trend over SQLite.
expect_status 0 "$bin" history --db "$T/same.sqlite" import "$A" "$B" "$M"
for q in "--kernel bare --test wake_latency" "--test irq_latency --metric p99" "--metric median_ns"; do
  # shellcheck disable=SC2086
  expect_status 0 "$bin" history --db "$T/same.sqlite" trend $q --json
  lite=$out
  # shellcheck disable=SC2086
  expect_status 0 "$bin" history --db "$url" trend $q --json
  [[ $out == "$lite" ]] || { diff <(echo "$lite") <(echo "$out") >&2 || true; fail "trend $q differs between SQLite and PostgreSQL"; }
  [[ $(grep -c '"run_id"' <<<"$out") -ge 3 ]] || { echo "$out"; fail "trend $q has too few points"; }
  ok "trend $q: PostgreSQL and SQLite agree"
done
expect_status 0 "$bin" history --db "$url" trend --kernel bare --test wake_latency
grep -F "$(basename "$M")" <<<"$out" | grep -q "kernel_version" || { echo "$out"; fail "the trend does not flag the changed kernel_version"; }
ok "the trend flags the run whose pinned kernel_version changed"

# Replace and superseded, through the CLI.
cp -r "$A" "$T/other"
sed -i 's/"finished_at": "\([^"]*\)"/"finished_at": "\1 (copy)"/' "$T/other/jobs/bare-O2-tick1000-fpu0/result.json"
expect_status 3 "$bin" history --db "$url" import "$T/other"
contains "$out" "with other content"
expect_status 0 "$bin" history --db "$url" import --replace "$T/other"
contains "$out" "replaced"
expect_status 0 "$bin" history --db "$url" superseded --json
contains "$out" "\"run_id\": \"$(basename "$A")\""

# Two runs at once, each recording into the history RTOSBENCH_HISTORY names.
mkdir -p "$T/cache1" "$T/cache2"
cp -r "$work/build-cache/." "$T/cache1/" 2>/dev/null || true
cp -r "$work/build-cache/." "$T/cache2/" 2>/dev/null || true
set +e
RTOSBENCH_HISTORY=$url "$bin" run --matrix "$data/matrix.yaml" --out "$T/run1" --build-cache "$T/cache1" >"$T/run1.out" 2>&1 &
q1=$!
# Both start in the same second, as two benches' nightly jobs may: the run
# ids still differ (a random tag follows the second and the matrix).
RTOSBENCH_HISTORY=$url "$bin" run --matrix "$data/matrix.yaml" --out "$T/run2" --build-cache "$T/cache2" >"$T/run2.out" 2>&1 &
q2=$!
wait $q1
s1=$?
wait $q2
s2=$?
set -e
[[ $s1 == 0 && $s2 == 0 ]] || { cat "$T/run1.out" "$T/run2.out" >&2; fail "two runs at once exited $s1 and $s2"; }
R1=$(basename "$(ls -d "$T/run1"/*/)") R2=$(basename "$(ls -d "$T/run2"/*/)")
[[ $R1 != "$R2" ]] || fail "the two runs have one id"
contains "$(cat "$T/run1.out")" "history: recorded $R1"
contains "$(cat "$T/run2.out")" "history: recorded $R2"
expect_status 0 "$bin" history --db "$url" runs
contains "$out" "$R1"
contains "$out" "$R2"
[[ $(grep -c -- "-report-e2e" <<<"$out") == 5 ]] || { echo "$out"; fail "history runs does not show five runs"; }
ok "two runs recorded from two processes at once both show in history"
[[ ! -e $RTOSBENCH_HISTORY ]] || fail "something was recorded in the default SQLite history"

# A password is used, never printed.
expect_status 0 "$bin" history --db "$password_url" import "$A"
[[ $out != *"$password"* ]] || { echo "$out"; fail "the password was printed"; }
contains "$out" "rtosbench_pw:***@"
wrong=${password_url/$password/${password}x}
expect_status 69 "$bin" history --db "$wrong" runs
contains "$out" "password authentication failed"
[[ $out != *"$password"* ]] || { echo "$out"; fail "the password was printed"; }
ok "the password is never printed"
expect_status 64 "$bin" history --db "mysql://lab@127.0.0.1/history" runs
contains "$out" "no backend serves 'mysql://'"
