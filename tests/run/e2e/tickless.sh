#!/usr/bin/env bash
# The tickless variant (`variants: {tickless: [0, 1]}`, a sweep here): the
# job ids, CONFIG tickless=, a port without a tickless mode refused at
# configure with its reason (BUILD_ERROR), and with FreeRTOS' source: the tick
# test NA with the tickless reason, tick_drift timing the kernel's sleeps
# (tick_sleep) instead of the hook's stamps, counter_runs_in_idle left out, sleep_wake
# waking from the kernel's own tickless sleep (its exit path makes it longer
# than the periodic build's WFI wake), and the report's tickless axis; then
# the Zephyr, uC/OS-III and Mbed OS tickless jobs of configs/qemu.yaml's
# sweep, each when its sources are here.
source "$(dirname "$0")/lib.sh" "$@"
M=$DATA/run/tickless.yaml

rb_run --matrix "$M" --list --sweep tickless
expect_eq "sweep tickless, its exclude" \
  "bare-O2-tick1000-fpu0 freertos-O2-tick1000-fpu0 freertos-O2-tick1000-fpu0-tickless" \
  "$(echo "$OUT" | paste -sd' ')"

rb_run --matrix "$M" --out "$WORK/bare" --sweep bare-only --only 'bare-*' --no-history
# A variant the port does not build is PORT_MISSING with the port's reason
# (rb_variant_not_built), not a build failure: the run succeeds.
expect_eq "a tickless build of a port without one is no failure (exit 0)" 0 "$RC"
d=$(run_dir "$WORK/bare")
expect_eq "bare tickless: status" PORT_MISSING "$(job_status "$d" bare-O2-tick1000-fpu0-tickless)"
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
expect_eq "periodic: tick_drift from the hook's stamps" "1 0" \
  "$(jq -r '[([.series[] | select(.name == "tick_period")] | length), ([.series[] | select(.name == "tick_sleep")] | length)] | join(" ")' "$p")"
expect_eq "tickless: tick_drift from the kernel's sleeps" "0 1" \
  "$(jq -r '[([.series[] | select(.name == "tick_period")] | length), ([.series[] | select(.name == "tick_sleep")] | length)] | join(" ")' "$t")"
expect_eq "tickless: CHECK tick_drift re-derived and OK" OK \
  "$(jq -r '.verify.checks[] | select(.name == "tick_drift") | .status' "$t")"
expect_eq "periodic: counter_runs_in_idle checked" OK \
  "$(jq -r '.verify.checks[] | select(.name == "counter_runs_in_idle") | .status' "$p")"
expect_eq "tickless: counter_runs_in_idle left out" "" \
  "$(jq -r '.verify.checks[] | select(.name == "counter_runs_in_idle") | .status' "$t")"
sw() { jq -r '.series[] | select(.name == "sleep_wake" and .phase == "wfi") | .median_ticks' "$1"; }
sp=$(sw "$p") st=$(sw "$t")
echo "sleep_wake median: periodic $sp, tickless $st"
expect_eq "sleep_wake measured in both" 1 "$([[ -n $sp && -n $st ]] && echo 1 || echo 0)"
expect_eq "the tickless exit path lengthens the wake" 1 "$((st > sp))"
expect_eq "tickless: the critical phase delayed events" 1 \
  "$(grep -h '^PHASE,critical' "$(dirname "$t")"/attempt-*/capture.raw |
    grep -qE 'entry_delayed=[1-9]' && echo 1 || echo 0)"

"$RB" report "$d" --md "$WORK/report.md" 2>/dev/null
expect_contains "report: the tickless axis" "tickless idle (CONFIG tickless)" "$(cat "$WORK/report.md")"
expect_contains "report: sleep_wake against the axis, marked (the QEMU board declares it unstable)" "| freertos | wfi/sleep_wake | $sp (unstable) | $st (unstable) |" \
  "$(cat "$WORK/report.md")"

# Every other port's tickless job of the sweep configs/qemu.yaml ships, each
# when its sources are here. Which ports build a tickless kernel is their
# recipes' fact (RB_PORT_TICKLESS in ports/<port>/port.cmake, docs/porting.md),
# not this test's: such a port's job is OK and times the kernel's own sleeps;
# every other port's job is PORT_MISSING with its recipe's reason.
# Sources: those the port tests use (rtosbench kernels args).
mapfile -t src < <("$RB" kernels args)
has_source() {
  local a
  for a in "${src[@]}"; do [[ $a == "$1="* ]] && return 0; done
  return 1
}
ports=$DATA/../../firmware/ports
builds_tickless() { grep -qE '^set\(RB_PORT_TICKLESS "[^"]+"\)' "$ports/$1/port.cmake"; }
sel=() want=()
while read -r k _; do
  [[ $k == freertos ]] && continue # above
  if [[ $k == bare ]] || has_source "$k"; then
    sel+=(--only "$k-*-tickless") want+=("$k")
  else
    echo "note: no source for $k here: no $k tickless job"
  fi
done < <("$RB" kernels list)
rb_run --matrix "$DATA/../../configs/qemu.yaml" --out "$WORK/others" --sweep seed000-tickless \
  "${sel[@]}" "${src[@]}" --no-history
expect_eq "the other tickless jobs run (PORT_MISSING is no failure)" 0 "$RC"
o=$(run_dir "$WORK/others")
ticklessok=0
for k in "${want[@]}"; do
  r=$o/jobs/$k-O2-tick1000-fpu0-tickless/result.json
  if ! builds_tickless "$k"; then
    expect_eq "$k tickless: PORT_MISSING (its recipe names no RB_PORT_TICKLESS)" PORT_MISSING \
      "$(jq -r .status "$r")"
    expect_contains "$k tickless: the recipe's reason" "port has no tickless idle" \
      "$(jq -r .reason "$r")"
    continue
  fi
  ticklessok=$((ticklessok + 1))
  expect_eq "$k tickless: OK" OK "$(jq -r .status "$r")"
  expect_eq "$k tickless: CONFIG tickless" 1 "$(jq -r .conditions.tickless "$r")"
  # tick_drift times the kernel's sleeps against the counter (tick_sleep).
  expect_eq "$k tickless: tick_drift measures its sleeps" 1 \
    "$(jq '[.series[] | select(.name == "tick_sleep")] | length' "$r")"
  expect_eq "$k tickless: sleep_wake measured" 1 \
    "$(jq '[.series[] | select(.name == "sleep_wake" and .phase == "wfi")] | length' "$r")"
  # The critical phase masks once per tick in a tickless build too (paced
  # by the ruler): 2% of the events fall into a masked window.
  expect_eq "$k tickless: the critical phase delayed events" 1 \
    "$(grep -h '^PHASE,critical' "$(dirname "$r")"/attempt-*/capture.raw |
      grep -qE 'entry_delayed=[1-9]' && echo 1 || echo 0)"
done
echo "tickless ports measured here besides FreeRTOS: $ticklessok"
finish
