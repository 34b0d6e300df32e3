#!/usr/bin/env bash
# Test: mixed_load sees a kernel's masked IPC paths (issue 29 item 5). Builds
# the bare port twice for the emulated bench, as it is and with
# RB_BARE_TEST_MASK_SPIN (queue_send spins with interrupts masked, a port
# that masks too long), runs each under QEMU, verifies each log with the real
# `rtosbench verify` (exit 0), then compares the medians:
#   - as it is: mixed_load is event_to_task's path (busy phase), within a
#     few instructions (the ISR's hand-over to the test's handler);
#   - masking: mixed_load is far above that build's wake_latency and
#     event_to_task, and above the normal build's mixed_load, while
#     wake_latency and event_to_task (no queue_send on their paths) are the
#     same in both builds.
#   mixed-load-mask.sh RTOSBENCH_BIN FIRMWARE_SRC WORK_DIR GENERATOR REPO_ROOT
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bin=$1 src=$2 work=$3 gen=$4 root=$5
run_qemu="$root/scripts/run-qemu.sh"
rm -rf "$work"
mkdir -p "$work"
opts=(-DRB_PORT=bare -DRB_BOARD=qemu-netduinoplus2 -DRB_SAMPLES=2000 -DRB_WARMUP=100
  "-DRB_TESTS=ruler,wake_latency,irq_latency,mixed_load")

# median NAME [PHASE] < log: median_ticks of the RESULT (of PHASE's block).
median() {
  awk -v name="$1" -v phase="${2:-}" -F, '
    $1 == "PHASE" { cur = $2 }
    $1 == "RESULT" && $2 == name && (phase == "" || cur == phase) {
      for (i = 3; i <= NF; i++) if ($i ~ /^median_ticks=/) { sub(/^median_ticks=/, "", $i); print $i; exit }
    }' "$3"
}

declare -A med
for variant in normal mask; do
  build="$work/$variant"
  extra=()
  [[ $variant == mask ]] && extra=(-DRB_BARE_TEST_MASK_SPIN=4000)
  fw_configure_build "$src" "$build" "$gen" "${opts[@]}" "${extra[@]}"
  log="$work/$variant.log"
  "$run_qemu" "$build/rtosbench-fw.elf" "$log" 120 || fail "$variant: run-qemu.sh exited $?"
  rc=0
  "$bin" verify "$log" >"$work/$variant.verify.txt" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    cat "$work/$variant.verify.txt" >&2
    fail "$variant: rtosbench verify exited $rc (0 required)"
  fi
  med[$variant.mixed]=$(median mixed_load "" "$log")
  med[$variant.wake]=$(median wake_latency "" "$log")
  med[$variant.busy]=$(median event_to_task busy "$log")
  for k in mixed wake busy; do
    [[ ${med[$variant.$k]} =~ ^[0-9]+$ ]] || fail "$variant: no median for $k in $log"
  done
  echo "$variant: mixed_load ${med[$variant.mixed]}, wake_latency ${med[$variant.wake]}," \
    "event_to_task (busy) ${med[$variant.busy]}"
done

n_mixed=${med[normal.mixed]} n_busy=${med[normal.busy]}
m_mixed=${med[mask.mixed]} m_busy=${med[mask.busy]} m_wake=${med[mask.wake]}
((n_mixed >= n_busy && n_mixed <= n_busy + 16)) ||
  fail "normal: mixed_load $n_mixed is not event_to_task's $n_busy (within 16)"
((m_mixed > 10 * m_wake && m_mixed > 10 * m_busy)) ||
  fail "mask: mixed_load $m_mixed is not far above wake_latency $m_wake and event_to_task $m_busy"
((m_mixed > n_mixed + 1000)) ||
  fail "mask: mixed_load $m_mixed is not above the normal build's $n_mixed by 1000 or more"
[[ $m_wake == "${med[normal.wake]}" && $m_busy == "$n_busy" ]] ||
  fail "wake_latency/event_to_task moved with the masking (${med[normal.wake]}/$n_busy -> $m_wake/$m_busy)"
echo "ok: masking in queue_send moves mixed_load $n_mixed -> $m_mixed, nothing else"
