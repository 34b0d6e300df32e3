#!/usr/bin/env bash
# The tickless variant (`variants: {tickless: [0, 1]}`, a sweep here): the
# job ids, CONFIG tickless=, a port without a tickless mode refused at
# configure with its reason (BUILD_ERROR), and with FreeRTOS' source: the tick
# test NA with the tickless reason, counter_runs_in_idle left out, sleep_wake
# waking from the kernel's own tickless sleep (its exit path makes it longer
# than the periodic build's WFI wake), and the report's tickless axis; with
# Zephyr's sources, its tickless job of configs/qemu.yaml's sweep.
source "$(dirname "$0")/lib.sh" "$@"
M=$DATA/run/tickless.yaml

rb_run --matrix "$M" --list --sweep tickless
expect_eq "sweep tickless, its exclude" \
  "bare-O2-tick1000-fpu0 freertos-O2-tick1000-fpu0 freertos-O2-tick1000-fpu0-tickless" \
  "$(echo "$OUT" | paste -sd' ')"

rb_run --matrix "$M" --out "$WORK/bare" --sweep bare-only --only 'bare-*' --no-history
expect_eq "a tickless build of a port without one fails (exit 2)" 2 "$RC"
d=$(run_dir "$WORK/bare")
expect_eq "bare tickless: status" BUILD_ERROR "$(job_status "$d" bare-O2-tick1000-fpu0-tickless)"
expect_contains "bare tickless: the reason" "the bare port has no tickless idle" \
  "$(job_reason "$d" bare-O2-tick1000-fpu0-tickless)"

if [[ -z "${RTOSBENCH_KERNEL_FREERTOS:-}" ]]; then
  echo "note: RTOSBENCH_KERNEL_FREERTOS unset: the FreeRTOS jobs did not run"
  finish
  exit 0
fi
rb_run --matrix "$M" --out "$WORK/runs" --sweep tickless --only 'freertos-*' \
  --kernel-source "freertos=$RTOSBENCH_KERNEL_FREERTOS" --no-history
expect_eq "sweep run" 0 "$RC"
d=$(run_dir "$WORK/runs")
p=$d/jobs/freertos-O2-tick1000-fpu0/result.json
t=$d/jobs/freertos-O2-tick1000-fpu0-tickless/result.json
expect_eq "periodic: OK" OK "$(jq -r .status "$p")"
expect_eq "tickless: OK" OK "$(jq -r .status "$t")"
expect_eq "periodic: CONFIG tickless" 0 "$(jq -r .conditions.tickless "$p")"
expect_eq "tickless: CONFIG tickless" 1 "$(jq -r .conditions.tickless "$t")"
expect_eq "periodic: tick_overhead measured" 1 \
  "$(jq '[.series[] | select(.name == "tick_overhead")] | length' "$p")"
expect_contains "tickless: tick_overhead NA for its tick" "this build is tickless" \
  "$(jq -r '.not_applicable[] | select(.name == "tick_overhead") | .reason' "$t")"
expect_eq "periodic: counter_runs_in_idle checked" OK \
  "$(jq -r '.verify.checks[] | select(.name == "counter_runs_in_idle") | .status' "$p")"
expect_eq "tickless: counter_runs_in_idle left out" "" \
  "$(jq -r '.verify.checks[] | select(.name == "counter_runs_in_idle") | .status' "$t")"
sw() { jq -r '.series[] | select(.name == "sleep_wake" and .phase == "wfi") | .median_ticks' "$1"; }
sp=$(sw "$p") st=$(sw "$t")
echo "sleep_wake median: periodic $sp, tickless $st"
expect_eq "sleep_wake measured in both" 1 "$([[ -n $sp && -n $st ]] && echo 1 || echo 0)"
expect_eq "the tickless exit path lengthens the wake" 1 "$((st > sp))"

"$RB" report "$d" --md "$WORK/report.md" 2>/dev/null
expect_contains "report: the tickless axis" "tickless idle (CONFIG tickless)" "$(cat "$WORK/report.md")"
expect_contains "report: sleep_wake against the axis" "| freertos | wfi/sleep_wake | $sp | $st |" \
  "$(cat "$WORK/report.md")"

# Zephyr's tickless build (CONFIG_TICKLESS_KERNEL, Zephyr's own WFI in idle),
# through the sweep configs/qemu.yaml ships, when its sources are here.
if [[ -z "${RTOSBENCH_KERNEL_ZEPHYR:-}" || -z "${RTOSBENCH_KERNEL_ZEPHYR_HAL_STM32:-}" ||
  -z "${RTOSBENCH_KERNEL_ZEPHYR_CMSIS:-}" ]]; then
  echo "note: RTOSBENCH_KERNEL_ZEPHYR(_HAL_STM32, _CMSIS) unset: the Zephyr job did not run"
  finish
  exit 0
fi
rb_run --matrix "$DATA/../../configs/qemu.yaml" --out "$WORK/zephyr" --sweep seed000-tickless \
  --only 'zephyr-*-tickless' --kernel-source "zephyr=$RTOSBENCH_KERNEL_ZEPHYR" \
  --kernel-source "zephyr.hal_stm32=$RTOSBENCH_KERNEL_ZEPHYR_HAL_STM32" \
  --kernel-source "zephyr.cmsis=$RTOSBENCH_KERNEL_ZEPHYR_CMSIS" --no-history
expect_eq "zephyr tickless run" 0 "$RC"
z=$(run_dir "$WORK/zephyr")/jobs/zephyr-O2-tick1000-fpu0-tickless/result.json
expect_eq "zephyr tickless: OK" OK "$(jq -r .status "$z")"
expect_eq "zephyr tickless: CONFIG tickless" 1 "$(jq -r .conditions.tickless "$z")"
expect_contains "zephyr tickless: tick_drift NA for its tick" "this build is tickless" \
  "$(jq -r '.not_applicable[] | select(.name == "tick_drift") | .reason' "$z")"
expect_eq "zephyr tickless: sleep_wake measured" 1 \
  "$(jq '[.series[] | select(.name == "sleep_wake" and .phase == "wfi")] | length' "$z")"
finish
