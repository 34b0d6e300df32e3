#!/usr/bin/env bash
# SIGINT in the middle of a capture leaves the run directory consistent
# (finished jobs have their result, the interrupted one has none, run.json
# says interrupted, exit 130); --resume finishes the rest without redoing
# finished jobs, and the interrupted attempt stays on record.
source "$(dirname "$0")/lib.sh" "$@"

set +e
# One build at a time, in job order: the board takes the bare jobs first.
"$RB" run --matrix "$DATA/run/interrupt.yaml" --out "$WORK/runs" --build-cache "$CACHE" --build-jobs 1 \
  >"$WORK/out.txt" 2>"$WORK/err.txt" &
pid=$!
set -e
target=""
for _ in $(seq 1 600); do
  target=$(ls "$WORK"/runs/*/jobs/slow-O2-tick1000-fpu0-r1/attempt-1/capture.raw 2>/dev/null || true)
  if [[ -n "$target" && -s "$target" ]]; then break; fi
  sleep 0.1
done
[[ -n "$target" ]] || fail "the slow job never started capturing"
kill -INT "$pid"
set +e
wait "$pid"
RC=$?
set -e
expect_eq "interrupted exit code" 130 "$RC"
d=$(run_dir "$WORK/runs")
expect_eq "run state" interrupted "$(jq -r .state "$d/run.json")"
expect_eq "finished r1" OK "$(job_status "$d" bare-O2-tick1000-fpu0-r1)"
expect_eq "finished r2" OK "$(job_status "$d" bare-O2-tick1000-fpu0-r2)"
expect_eq "interrupted job has no result" false "$([[ -e $d/jobs/slow-O2-tick1000-fpu0-r1/result.json ]] && echo true || echo false)"
expect_eq "interrupted attempt recorded" INTERRUPTED "$(jq -r .status "$d/jobs/slow-O2-tick1000-fpu0-r1/attempt-1/attempt.json")"
expect_eq "pending in run.json" PENDING "$(jq -r '.jobs[] | select(.id=="slow-O2-tick1000-fpu0-r2") | .status' "$d/run.json")"
expect_eq "no QEMU left behind" "" "$(pgrep -f "rtosbench-qemu-.*$(basename "$d")" || true)"
before=$(sha256sum "$d/jobs/bare-O2-tick1000-fpu0-r1/result.json")

set +e
"$RB" run --resume "$d" >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
ERR=$(cat "$WORK/err.txt")
expect_eq "resume exit code" 0 "$RC"
expect_contains "resume says what it keeps" "2 job(s) already finished are kept" "$ERR"
expect_eq "finished job not redone" "$before" "$(sha256sum "$d/jobs/bare-O2-tick1000-fpu0-r1/result.json")"
expect_eq "bare r1 has one attempt" 1 "$(jq '.attempts | length' "$d/jobs/bare-O2-tick1000-fpu0-r1/result.json")"
r=$d/jobs/slow-O2-tick1000-fpu0-r1/result.json
expect_eq "resumed job OK" OK "$(jq -r .status "$r")"
expect_eq "its attempts" "INTERRUPTED OK" "$(jq -r '[.attempts[].status] | join(" ")' "$r")"
expect_eq "last job OK" OK "$(job_status "$d" slow-O2-tick1000-fpu0-r2)"
expect_eq "run state" complete "$(jq -r .state "$d/run.json")"
expect_eq "two sessions recorded" "130 0" "$(jq -r '[.sessions[].exit_code] | map(tostring) | join(" ")' "$d/run.json")"
finish
