#!/usr/bin/env bash
# The image contract end to end (docs/porting.md, "The image contract"): the
# real tool builds the real firmware with arm-none-eabi-gcc in a scratch copy
# of the tree and checks each image against its kernel.yaml `contract:`.
#  - FreeRTOS as shipped keeps its contract: the job is OK and result.json
#    records what was checked (build.contract);
#  - FreeRTOS with its asserts compiled in and the trace facility on (the
#    copy's FreeRTOSConfig.h edited) fails BUILD_ERROR, and its reason and
#    build.log list every drift: the assert symbols linked, the header's
#    macros as the compiler evaluates them; with a build retry allowed, it is
#    built once (a drift is final);
#  - Zephyr with two debug options switched on in its prj.conf fails
#    BUILD_ERROR listing both .config options and the monitor's symbol;
#    NuttX with stack coloration on fails listing that .config option (each
#    when its source is here).
# Skips (77) when FreeRTOS' source is absent (rtosbench kernels env).
source "$(dirname "$0")/../run/e2e/lib.sh" "$@"
M=$DATA/build/contract.yaml
SRC=$(cd "$DATA/../.." && pwd)
if [[ -z "${RTOSBENCH_KERNEL_FREERTOS:-}" ]]; then
  echo "skip: RTOSBENCH_KERNEL_FREERTOS unset (eval \"\$(rtosbench kernels env)\")"
  exit 77
fi
mapfile -t src < <("$RB" kernels args)
fresh_tree() { rm -rf "$WORK/fw"; cp -r "$SRC/firmware" "$WORK/fw"; }

# 1. Clean: the shipped tree keeps the contract.
fresh_tree
rb_run --matrix "$M" --firmware "$WORK/fw" --out "$WORK/clean" --only 'freertos-*' \
  "${src[@]}" --no-history
expect_eq "clean freertos: exit" 0 "$RC"
d=$(run_dir "$WORK/clean")
r=$d/jobs/freertos-O2-tick1000-fpu0/result.json
expect_eq "clean freertos: status" OK "$(jq -r .status "$r")"
expect_eq "clean freertos: symbol rules checked" true "$(jq '.build.contract.symbols > 10' "$r")"
expect_eq "clean freertos: header rules checked" true "$(jq '.build.contract.config >= 8' "$r")"
expect_eq "clean freertos: rule groups not for this variant" 4 "$(jq .build.contract.skipped "$r")"
expect_contains "clean freertos: the header the compiler found" "ports/freertos/FreeRTOSConfig.h" \
  "$(jq -r '.build.contract.files[0]' "$r")"
expect_contains "clean freertos: build.log says the contract was kept" "image contract kept" \
  "$(cat "$d/jobs/freertos-O2-tick1000-fpu0/build.log")"

# 2. Drift: asserts compiled in (configASSERT whatever the checks axis says)
#    and the trace facility on.
fresh_tree
sed -i 's/^#if RB_CFG_CHECKS$/#if 1/; s/^#define configUSE_TRACE_FACILITY 0/#define configUSE_TRACE_FACILITY 1/' \
  "$WORK/fw/ports/freertos/FreeRTOSConfig.h"
expect_eq "the drift is injected" 2 "$(grep -cE '^#if 1$|^#define configUSE_TRACE_FACILITY 1' "$WORK/fw/ports/freertos/FreeRTOSConfig.h")"
rb_run --matrix "$M" --firmware "$WORK/fw" --out "$WORK/drift" --only 'freertos-*' \
  "${src[@]}" --no-history
expect_eq "drifted freertos: exit (a job failed)" 1 "$((RC != 0))"
d=$(run_dir "$WORK/drift")
r=$d/jobs/freertos-O2-tick1000-fpu0/result.json
expect_eq "drifted freertos: status" BUILD_ERROR "$(jq -r .status "$r")"
reason=$(jq -r .reason "$r")
expect_contains "reason: the count" "4 drift(s) from the image contract" "$reason"
expect_contains "reason: the assert handler linked" \
  "symbol vPortValidateInterruptPriority is in the image, the contract says absent (when checks=off)" "$reason"
expect_contains "reason: its priority table linked" "symbol ucMaxSysCallPriority is in the image" "$reason"
expect_contains "reason: configASSERT evaluated" \
  "FreeRTOSConfig.h: configASSERT is '" "$reason"
expect_contains "reason: the trace facility" \
  "FreeRTOSConfig.h: configUSE_TRACE_FACILITY is '1', the contract requires 0" "$reason"
log=$(cat "$d"/builds/*/attempt-*/build.log 2>/dev/null || cat "$d/jobs/freertos-O2-tick1000-fpu0/build.log")
expect_eq "build.log: one line per drift" 4 "$(grep -c '  drift: ' <<<"$log")"
expect_contains "console: the job's reason" "vPortValidateInterruptPriority" "$OUT$ERR"
# The matrix allows a build retry; the same inputs make the same image, so a
# drift is not built twice.
expect_eq "drifted freertos: one build attempt (a drift is final)" 1 "$(jq '.build_attempts | length' "$r")"

# 3. A .config option changed: Zephyr and NuttX (each when its source is here)
#    with debug options on.
has_source() {
  local a
  for a in "${src[@]}"; do [[ $a == "$1="* ]] && return 0; done
  return 1
}
ran=0
for kernel in zephyr nuttx; do
  if ! has_source "$kernel"; then
    echo "note: $kernel's source is not here: its .config drift did not run"
    continue
  fi
  fresh_tree
  if [[ $kernel == zephyr ]]; then
    sed -i 's/^CONFIG_THREAD_MONITOR=n$/CONFIG_THREAD_MONITOR=y/; s/^CONFIG_INIT_STACKS=n$/CONFIG_INIT_STACKS=y/' \
      "$WORK/fw/ports/zephyr/app/prj.conf"
    # The thread monitor also links its exit hook: a symbol drift besides the two options.
    want=("CONFIG_THREAD_MONITOR is y, the contract requires n" "CONFIG_INIT_STACKS is y, the contract requires n"
      "symbol z_thread_monitor_exit is in the image, the contract says absent")
  else
    echo "CONFIG_STACK_COLORATION=y" >>"$WORK/fw/ports/nuttx/defconfig"
    # Coloration links the stack check that reads the colour back: a symbol drift too.
    want=("CONFIG_STACK_COLORATION is y, the contract requires n"
      "symbol up_check_tcbstack is in the image, the contract says absent")
  fi
  rb_run --matrix "$M" --firmware "$WORK/fw" --out "$WORK/$kernel" --only "$kernel-*" \
    "${src[@]}" --no-history
  d=$(run_dir "$WORK/$kernel")
  r=$d/jobs/$kernel-O2-tick1000-fpu0/result.json
  expect_eq "drifted $kernel: status" BUILD_ERROR "$(jq -r .status "$r")"
  reason=$(jq -r .reason "$r")
  for w in "${want[@]}"; do expect_contains "drifted $kernel: reason" "$w" "$reason"; done
  expect_contains "drifted $kernel: the count" "${#want[@]} drift(s)" "$reason"
  ran=$((ran + 1))
done
if ((ran == 0)); then
  echo "note: neither Zephyr's nor NuttX's source is here: no .config drift ran"
fi
finish
