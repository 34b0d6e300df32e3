#!/usr/bin/env bash
# A run directory is locked while a run or resume works in it: a second
# --resume is refused (exit 69) naming the holder's pid, and the first one
# finishes the run alone (one OK attempt, one session more).
source "$(dirname "$0")/lib.sh" "$@"

set +e
"$RB" run --matrix "$DATA/run/slow.yaml" --out "$WORK/runs" --build-cache "$CACHE" --no-history \
  >"$WORK/out.txt" 2>"$WORK/err.txt" &
pid=$!
set -e
for _ in $(seq 1 1800); do
  raw=$(ls "$WORK"/runs/*/jobs/slow-O2-tick1000-fpu0/attempt-1/capture.raw 2>/dev/null || true)
  if [[ -n "$raw" && -s "$raw" ]]; then break; fi
  sleep 0.1
done
d=$(run_dir "$WORK/runs")
# While the first session works, neither a resume may start.
set +e
"$RB" run --resume "$d" --no-history >"$WORK/out2.txt" 2>"$WORK/err2.txt"
RC=$?
set -e
expect_eq "resume during the run: refused" 69 "$RC"
expect_contains "refusal names the holder" "locked by process $pid" "$(<"$WORK/err2.txt")"
kill -INT "$pid"
set +e
wait "$pid"
set -e

# Two resumes at once: one works, the other is refused with the first's pid.
set +e
"$RB" run --resume "$d" --no-history >"$WORK/outA.txt" 2>"$WORK/errA.txt" &
a=$!
"$RB" run --resume "$d" --no-history >"$WORK/outB.txt" 2>"$WORK/errB.txt" &
b=$!
wait "$a"
rca=$?
wait "$b"
rcb=$?
set -e
expect_eq "exit codes (one ran, one refused)" "0 69" "$(printf '%s\n' "$rca" "$rcb" | sort -n | paste -sd' ')"
if ((rca == 69)); then refused=$WORK/errA.txt holder=$b; else refused=$WORK/errB.txt holder=$a; fi
expect_contains "the refused one names the holder" "locked by process $holder" "$(<"$refused")"
r=$d/jobs/slow-O2-tick1000-fpu0/result.json
expect_eq "the job ran once more, not twice" "INTERRUPTED OK" "$(jq -r '[.attempts[].status] | join(" ")' "$r")"
expect_eq "sessions" "130 0" "$(jq -r '[.sessions[].exit_code] | map(tostring) | join(" ")' "$d/run.json")"
finish
