#!/usr/bin/env bash
# A normal run on the emulated bench: built, flashed into QEMU, captured
# through a pty, verified OK; every artifact in the run directory; a second
# run takes the image from the build cache.
source "$(dirname "$0")/lib.sh" "$@"

rb_run --matrix "$DATA/run/normal.yaml" --out "$WORK/runs"
expect_eq "exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
j=bare-O2-tick1000-fpu0
expect_eq "status" OK "$(job_status "$d" $j)"
for f in run.json matrix.yaml bench.yaml jobs/$j/result.json jobs/$j/build.log jobs/$j/firmware/rtosbench-fw.elf \
         jobs/$j/firmware/rtosbench-fw.map jobs/$j/attempt-1/flash.log jobs/$j/attempt-1/capture.raw \
         jobs/$j/attempt-1/verify.json builds/$j/attempt-1/build.log; do
  expect_file "$d/$f"
done
r=$d/jobs/$j/result.json
expect_eq "schema" rtosbench.job_result "$(jq -r .schema "$r")"
expect_eq "elf sha256 recorded" "$(sha256sum "$d/jobs/$j/firmware/rtosbench-fw.elf" | cut -d' ' -f1)" "$(jq -r .build.elf_sha256 "$r")"
expect_eq "map sha256 recorded" "$(sha256sum "$d/jobs/$j/firmware/rtosbench-fw.map" | cut -d' ' -f1)" "$(jq -r .build.map_sha256 "$r")"
expect_eq "raw capture sha256" "$(sha256sum "$d/jobs/$j/attempt-1/capture.raw" | cut -d' ' -f1)" "$(jq -r '.attempts[0].capture.raw_sha256' "$r")"
expect_eq "text size > 0" true "$(jq '.build.footprint.text > 0' "$r")"
expect_eq "nonce pinned and echoed" "$(jq -r .build.nonce "$r")" "$(jq -r .conditions.nonce "$r")"
expect_eq "first line captured: the banner" "rtosbench-fw: board=qemu-netduinoplus2" "$(head -n 1 "$d/jobs/$j/attempt-1/capture.raw" | cut -d' ' -f1-2)"
expect_eq "then BEGIN, after the start line" "BEGIN,RTOS_BENCH_V2" "$(sed -n 2p "$d/jobs/$j/attempt-1/capture.raw" | head -c 19)"
expect_eq "one start line sent" 1 "$(jq '.attempts[0].capture.start_sends' "$r")"
expect_eq "CONFIG start=host" host "$(jq -r .conditions.start "$r")"
expect_eq "series recorded" 7 "$(jq '.series | length' "$r")"
expect_eq "wake_latency median" 321 "$(jq '.headline[] | select(.name=="wake_latency") | .median_ticks' "$r")"
expect_eq "unit" instructions "$(jq -r .unit "$r")"
expect_eq "target run time measured" true "$(jq '.attempts[0].capture.target_run_seconds > 0' "$r")"
expect_eq "run state" complete "$(jq -r .state "$d/run.json")"
expect_eq "not cached the first time" false "$(jq .build.cached "$r")"
expect_contains "closing table" "bare-O2-tick1000-fpu0  OK" "$OUT"
expect_contains "closing table units" "medians in instructions" "$OUT"

# Warm cache: nothing is compiled; --json prints the summary.
rb_run --matrix "$DATA/run/normal.yaml" --out "$WORK/runs" --json
expect_eq "exit code (second run)" 0 "$RC"
d2=$(run_dir "$WORK/runs")
expect_eq "a new run directory" true "$([[ "$d2" != "$d" ]] && echo true || echo false)"
expect_eq "cache hit" true "$(jq .build.cached "$d2/jobs/$j/result.json")"
expect_eq "same image" "$(jq -r .build.elf_sha256 "$r")" "$(jq -r .build.elf_sha256 "$d2/jobs/$j/result.json")"
expect_eq "--json summary" complete "$(echo "$OUT" | jq -r .state)"
expect_eq "--json job status" OK "$(echo "$OUT" | jq -r '.jobs[0].status')"
finish
