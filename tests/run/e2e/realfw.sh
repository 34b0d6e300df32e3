#!/usr/bin/env bash
# The real firmware, built by the runner and run on the emulated bench: OK,
# with the pinned conditions echoed and the headline series present.
source "$(dirname "$0")/lib.sh" "$@"

rb_run --matrix "$DATA/run/realfw.yaml" --out "$WORK/runs"
expect_eq "exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
r=$d/jobs/bare-O2-tick1000-fpu0/result.json
expect_eq "status" OK "$(jq -r .status "$r")"
expect_eq "port echoed" bare "$(jq -r .conditions.port "$r")"
expect_eq "samples echoed" 300 "$(jq -r .conditions.samples "$r")"
expect_eq "nonce echoed" "$(jq -r .build.nonce "$r")" "$(jq -r .conditions.nonce "$r")"
for s in wake_latency api_overhead round_trip event_to_task; do
  expect_eq "headline $s" 1 "$(jq "[.headline[] | select(.name==\"$s\")] | length" "$r")"
done
finish
