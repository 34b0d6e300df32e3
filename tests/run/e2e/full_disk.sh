#!/usr/bin/env bash
# A disk that fills up during the capture: the attempt is STORE_ERROR, not a
# PORT_ERROR, and is not retried (the matrix allows two capture retries); the
# run exits 74 and never reports the job as kept. Needs a small tmpfs: skipped
# (exit 77, with the reason) where mount is not permitted.
source "$(dirname "$0")/lib.sh" "$@"
FULL=$WORK/full
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=16m tmpfs "$FULL" 2>"$WORK/mount.txt"; then
  echo "SKIP: cannot mount a tmpfs here: $(cat "$WORK/mount.txt")"
  exit 77
fi
trap 'umount -l "$FULL" 2>/dev/null || true; rm -rf "$WORK"' EXIT

set +e
"$RB" run --matrix "$DATA/run/slow.yaml" --out "$FULL/runs" --build-cache "$CACHE" --no-history --json \
  >"$WORK/out.txt" 2>"$WORK/err.txt" &
pid=$!
set -e
raw=""
for _ in $(seq 1 1800); do
  raw=$(ls "$FULL"/runs/*/jobs/slow-O2-tick1000-fpu0/attempt-1/capture.raw 2>/dev/null || true)
  if [[ -n "$raw" && -s "$raw" ]]; then break; fi
  sleep 0.1
done
[[ -n "$raw" ]] || fail "the capture never started"
# This run's QEMU, by its image path (unique to this test's directory; run ids
# of tests started in the same second are alike).
[[ -n "$(pgrep -f "qemu-system-arm .*-kernel ${raw%/jobs/*}/" || true)" ]] ||
  fail "no QEMU found for the run (the check below would prove nothing)"
# Fill what is left of the disk while the firmware is still printing.
dd if=/dev/zero of="$FULL/filler" bs=64k >/dev/null 2>&1 || true
set +e
wait "$pid"
RC=$?
set -e
ERR=$(<"$WORK/err.txt")
d=$(run_dir "$FULL/runs")
j=$d/jobs/slow-O2-tick1000-fpu0
expect_eq "exit code" 74 "$RC"
# Nothing more can be written on the full disk: the summary on stdout (--json)
# is what run.json would say.
expect_eq "job status" STORE_ERROR "$(jq -r '.jobs[0].status' "$WORK/out.txt")"
expect_contains "the reason names the full disk" "capture.raw: No space left on device" \
  "$(jq -r '.jobs[0].reason' "$WORK/out.txt")"
expect_eq "not retried as a port error" false "$([[ -e $j/attempt-2 ]] && echo true || echo false)"
expect_eq "no result kept" false "$([[ -e $j/result.json ]] && echo true || echo false)"
expect_contains "stderr says what was not kept" "cannot write" "$ERR"
expect_eq "no QEMU left behind" "" "$(pgrep -f "qemu-system-arm .*-kernel $d/" || true)"
finish
