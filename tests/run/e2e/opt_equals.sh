#!/usr/bin/env bash
# Optimisation flags holding '=' (-D<MACRO>=<value>, -std=<standard>) reach
# CONFIG unchanged, so verify's pinned opt matches and the job is OK, not
# INVALID (issue 35 item 10).
source "$(dirname "$0")/lib.sh" "$@"

opt="-O2 -g0 -DRB_E2E_FLAG=1 -std=gnu11"
rb_run --matrix "$DATA/run/opt_equals.yaml" --out "$WORK/runs"
expect_eq "exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
r=$(ls "$d"/jobs/*/result.json | head -1)
expect_eq "status" OK "$(jq -r .status "$r")"
expect_eq "opt echoed losslessly" "$opt" "$(jq -r .conditions.opt "$r")"
raw=$(dirname "$r")/$(jq -r '.attempts[-1].capture.raw_file' "$r")
expect_contains "CONFIG line in the capture" ",opt=$opt," "$(cat "$raw")"
finish
