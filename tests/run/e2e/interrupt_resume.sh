#!/usr/bin/env bash
# SIGINT in the middle of a capture leaves the run directory consistent
# (finished jobs have their result, the interrupted one has none but keeps
# its finished load, run.json says interrupted, exit 130); --resume finishes
# the rest without redoing finished jobs or loads, and the interrupted
# attempt stays on record. The matrix asks for two loads per job.
source "$(dirname "$0")/lib.sh" "$@"

set +e
# One build at a time, in job order: the board takes the bare job first.
# (A kernel source no job uses: resume must keep it as an option all the same.)
mkdir -p "$WORK/fakeos-src"
"$RB" run --matrix "$DATA/run/interrupt.yaml" --out "$WORK/runs" --build-cache "$CACHE" --build-jobs 1 \
  --kernel-source "fakeos=$WORK/fakeos-src" >"$WORK/out.txt" 2>"$WORK/err.txt" &
pid=$!
set -e
target=""
for _ in $(seq 1 900); do
  target=$(ls "$WORK"/runs/*/jobs/slow-O2-tick1000-fpu0/load-2/attempt-1/capture.raw 2>/dev/null || true)
  if [[ -n "$target" && -s "$target" ]]; then break; fi
  sleep 0.1
done
[[ -n "$target" ]] || fail "the slow job's second load never started capturing"
kill -INT "$pid"
set +e
wait "$pid"
RC=$?
set -e
expect_eq "interrupted exit code" 130 "$RC"
d=$(run_dir "$WORK/runs")
slow=$d/jobs/slow-O2-tick1000-fpu0
expect_eq "run state" interrupted "$(jq -r .state "$d/run.json")"
expect_eq "finished job" OK "$(job_status "$d" bare-O2-tick1000-fpu0)"
expect_eq "finished job has two loads" 2 "$(jq '.loads | length' "$d/jobs/bare-O2-tick1000-fpu0/result.json")"
expect_eq "interrupted job has no result" false "$([[ -e $slow/result.json ]] && echo true || echo false)"
expect_eq "its first load is final" OK "$(jq -r .status "$slow/load-1/load.json")"
expect_eq "its second load is not" false "$([[ -e $slow/load-2/load.json ]] && echo true || echo false)"
expect_eq "interrupted attempt recorded" INTERRUPTED "$(jq -r .status "$slow/load-2/attempt-1/attempt.json")"
expect_eq "pending in run.json" PENDING "$(jq -r '.jobs[] | select(.id=="slow-O2-tick1000-fpu0") | .status' "$d/run.json")"
expect_eq "no QEMU left behind" "" "$(pgrep -f "qemu-system-arm .*-kernel $d/" || true)"
expect_eq "an interrupted run is not recorded in the history" false "$([[ -e $RTOSBENCH_HISTORY ]] && echo true || echo false)"
source1=$(jq -r .options.kernel_sources.fakeos "$d/run.json")
expect_contains "the first session's kernel source" "fakeos-src" "$source1"
before=$(sha256sum "$d/jobs/bare-O2-tick1000-fpu0/result.json")
load1=$(sha256sum "$slow/load-1/load.json")

set +e
"$RB" run --resume "$d" >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
ERR=$(cat "$WORK/err.txt")
expect_eq "resume exit code" 0 "$RC"
expect_contains "resume says what it keeps" "1 job(s) already finished are kept" "$ERR"
expect_eq "finished job not redone" "$before" "$(sha256sum "$d/jobs/bare-O2-tick1000-fpu0/result.json")"
expect_eq "finished load not redone" "$load1" "$(sha256sum "$slow/load-1/load.json")"
r=$slow/result.json
expect_eq "resumed job OK" OK "$(jq -r .status "$r")"
# The resumed build still compares its image with the bare job's (the slow
# port has no kernel object, so the figure is the error saying so).
expect_eq "resumed job's bare reference" "$(jq -r .build.key "$d/jobs/bare-O2-tick1000-fpu0/result.json")" \
  "$(jq -r .build.footprint_kernel.bare_key "$r")"
expect_contains "resumed job's kernel-alone figure" "no kernel object (rb_kernel)" \
  "$(jq -r .build.footprint_kernel.error "$r")"
expect_eq "its attempts" "1:OK 2:INTERRUPTED 2:OK" "$(jq -r '[.attempts[] | "\(.load):\(.status)"] | join(" ")' "$r")"
expect_eq "its loads reproduce" identical "$(jq -r .reproducibility.verdict "$r")"
expect_eq "run state" complete "$(jq -r .state "$d/run.json")"
expect_eq "resume keeps the first session's kernel sources" "$source1" \
  "$(jq -r .options.kernel_sources.fakeos "$d/run.json")"
expect_eq "two sessions recorded" "130 0" "$(jq -r '[.sessions[].exit_code] | map(tostring) | join(" ")' "$d/run.json")"
expect_eq "the resumed run is recorded in the history" 2 \
  "$(sqlite3 "$RTOSBENCH_HISTORY" "select count(*) from jobs where run_id='$(basename "$d")'")"
finish
