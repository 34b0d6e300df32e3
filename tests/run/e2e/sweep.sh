#!/usr/bin/env bash
# `run --sweep NAME` (the matrix's `sweeps:`): it replaces the variants, its
# samples and excludes apply, an unknown name is a usage error naming the
# sweeps, the RAM variant really runs its code from RAM (CONFIG ramfunc=1,
# rb_window1 linked at a RAM address), --resume keeps the sweep, and the
# report plots the axis and tables the seed measurements (yield).
source "$(dirname "$0")/lib.sh" "$@"
M=$DATA/run/sweep.yaml

rb_run --matrix "$M" --list
expect_eq "no sweep: the matrix's variants" "bare-O2-tick1000-fpu0 freertos-O2-tick1000-fpu0" \
  "$(echo "$OUT" | paste -sd' ')"
rb_run --matrix "$M" --list --sweep opt
expect_eq "sweep opt, its exclude" "bare-O1-tick1000-fpu0 bare-O2-tick1000-fpu0" \
  "$(echo "$OUT" | paste -sd' ')"
rb_run --matrix "$M" --list --sweep nosuch
expect_eq "unknown sweep: usage error" 64 "$RC"
expect_contains "unknown sweep names the sweeps" "opt, ram" "$ERR"

# FreeRTOS joins when its source is here; the bare jobs need none.
sel=(--only 'bare-*')
if [[ -n "${RTOSBENCH_KERNEL_FREERTOS:-}" ]]; then
  sel=(--kernel-source "freertos=$RTOSBENCH_KERNEL_FREERTOS")
else
  echo "note: RTOSBENCH_KERNEL_FREERTOS unset: the bare jobs only"
fi
rb_run --matrix "$M" --out "$WORK/runs" --sweep ram "${sel[@]}" --no-history
expect_eq "sweep run" 0 "$RC"
d=$(run_dir "$WORK/runs")
expect_eq "sweep recorded" ram "$(jq -r .options.sweep "$d/run.json")"
for j in "$d"/jobs/*; do
  id=$(basename "$j")
  expect_eq "$id status" OK "$(jq -r .status "$j/result.json")"
  expect_eq "$id samples from the sweep" 300 "$(jq -r .conditions.samples "$j/result.json")"
  want=0
  [[ $id == *-ram ]] && want=1
  expect_eq "$id CONFIG ramfunc" $want "$(jq -r .conditions.ramfunc "$j/result.json")"
  elf=$(find "$j" "$d/builds/$id" -name rtosbench-fw.elf 2>/dev/null | head -1)
  addr=$(arm-none-eabi-nm "$elf" | awk '$3 == "rb_window1" {print substr($1, 1, 2)}')
  expect_eq "$id rb_window1 in $([[ $want == 1 ]] && echo RAM || echo flash)" \
    "$([[ $want == 1 ]] && echo 20 || echo 08)" "$addr"
done
expect_eq "a RAM job per kernel" "$(ls "$d/jobs" | grep -vc -- -ram)" "$(ls "$d/jobs" | grep -c -- -ram)"

rb_run --resume "$d" --no-history
expect_eq "resume" 0 "$RC"
expect_eq "resume keeps the sweep" ram "$(jq -r .options.sweep "$d/run.json")"

"$RB" report "$d" --md "$WORK/report.md" --html "$WORK/report.html" 2>/dev/null
expect_contains "report: variants section" "## Variants" "$(cat "$WORK/report.md")"
expect_contains "report: the axis" "code in RAM (CONFIG ramfunc)" "$(cat "$WORK/report.md")"
expect_contains "report: the seed measurements' table" "Seed measurements: median" "$(cat "$WORK/report.md")"
expect_contains "report: a plot of the axis" "wake_latency: median against code in RAM" \
  "$(cat "$WORK/report.html")"
finish
