#!/usr/bin/env bash
# No child outlives rtosbench, however it dies: kill -9 during a QEMU job
# leaves no QEMU behind (PR_SET_PDEATHSIG); the next --resume removes the
# dead run's QEMU folder, records the killed session as interrupted and
# finishes the run. A double Ctrl-C also leaves no QEMU behind.
source "$(dirname "$0")/lib.sh" "$@"

# start_run OUT: a run of the slow job in the background; sets pid, waits
# for its capture to start and sets d (the run directory).
start_run() {
  set +e
  "$RB" run --matrix "$DATA/run/slow.yaml" --out "$1" --build-cache "$CACHE" --no-history \
    >"$WORK/out.txt" 2>"$WORK/err.txt" &
  pid=$!
  set -e
  local raw=""
  for _ in $(seq 1 1800); do
    raw=$(ls "$1"/*/jobs/slow-O2-tick1000-fpu0/attempt-1/capture.raw 2>/dev/null || true)
    if [[ -n "$raw" && -s "$raw" ]]; then break; fi
    sleep 0.1
  done
  [[ -n "$raw" ]] || fail "the capture never started"
  d=$(run_dir "$1")
}
# This run's QEMU by its image path: unique to this test's directory (run ids
# of tests started in the same second are alike).
qemus() { pgrep -f "qemu-system-arm .*-kernel $d/" || true; }

start_run "$WORK/runs"
[[ -n "$(qemus)" ]] || fail "no QEMU found for the run (the test would prove nothing)"
tmp=${TMPDIR:-/tmp}
expect_eq "QEMU's folder names its owner" 1 "$(ls -d "$tmp"/rtosbench-qemu-"$pid"-* 2>/dev/null | wc -l)"
kill -9 "$pid"
set +e
wait "$pid"
set -e
for _ in $(seq 1 50); do [[ -z "$(qemus)" ]] && break; sleep 0.1; done
expect_eq "kill -9: no QEMU left behind" "" "$(qemus)"
expect_eq "run.json left running" running "$(jq -r .state "$d/run.json")"

set +e
"$RB" run --resume "$d" --no-history >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "resume exit code" 0 "$RC"
expect_eq "the dead run's QEMU folder is removed" 0 "$(ls -d "$tmp"/rtosbench-qemu-"$pid"-* 2>/dev/null | wc -l)"
expect_contains "resume says the killed session was not closed" "ended without closing run.json" "$(<"$WORK/err.txt")"
expect_eq "sessions" "interrupted complete" "$(jq -r '[.sessions[].state] | join(" ")' "$d/run.json")"
expect_eq "run state" complete "$(jq -r .state "$d/run.json")"
expect_eq "job" OK "$(job_status "$d" slow-O2-tick1000-fpu0)"

start_run "$WORK/runs2"
kill -INT "$pid"
sleep 0.02
kill -INT "$pid" 2>/dev/null || true
set +e
wait "$pid"
RC=$?
set -e
expect_eq "double Ctrl-C exit code" 130 "$RC"
for _ in $(seq 1 50); do [[ -z "$(qemus)" ]] && break; sleep 0.1; done
expect_eq "double Ctrl-C: no QEMU left behind" "" "$(qemus)"
finish
