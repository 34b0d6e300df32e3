#!/usr/bin/env bash
# The emulated results table of docs/kernels.md: builds the bare port and the
# five kernel ports for qemu-netduinoplus2 with the default options (-O2 -g0,
# tick 1000 Hz, soft-float, 10000 samples after 1000 warm-up), runs each
# under QEMU RUNS times, checks every log with `rtosbench verify` and that the
# runs' statistics are byte-identical, and prints the median and p99 of every
# series (instruction counts: QEMU -icount, not Cortex-M4 cycles) and each
# kernel's footprint (`rtosbench footprint`) as Markdown.
#
#   RTOSBENCH_KERNEL_FREERTOS=... RTOSBENCH_KERNEL_THREADX=... \
#   RTOSBENCH_KERNEL_UCOS3=... RTOSBENCH_KERNEL_TENCENTOS=... \
#   RTOSBENCH_KERNEL_RTTHREAD_NANO=... \
#     tests/ports/results-table.sh RTOSBENCH_BIN WORK_DIR [RUNS]
#
# A kernel whose variable is unset is left out (and said so). The table also
# goes to WORK_DIR/results.md; logs, verify reports and builds stay in
# WORK_DIR. About a minute per kernel and run on one core.
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
[[ $# -ge 2 && $# -le 3 ]] || { echo "usage: $0 RTOSBENCH_BIN WORK_DIR [RUNS]" >&2; exit 2; }
bin=$1 work=$2 runs=${3:-1}
root=$(cd "$(dirname "$0")/../.." && pwd)
[[ -x $bin ]] || fail "rtosbench binary not found: $bin"
mkdir -p "$work"

# port | environment variable | known defect (docs/kernels.md); the version
# is the kernel's pin in configs/qemu.yaml (scripts/kernel-env.sh --pins).
ports=(
  "bare||"
  "freertos|RTOSBENCH_KERNEL_FREERTOS|"
  "threadx|RTOSBENCH_KERNEL_THREADX|"
  "ucos3|RTOSBENCH_KERNEL_UCOS3|"
  "tencentos|RTOSBENCH_KERNEL_TENCENTOS|mutex_pi"
  "rtthread_nano|RTOSBENCH_KERNEL_RTTHREAD_NANO|"
)
pins=$("$root/scripts/kernel-env.sh" --pins)
done_ports=()
for entry in "${ports[@]}"; do
  IFS='|' read -r port env_var defect <<<"$entry"
  version=$(awk -v k="$port" '$1 == k && $2 == "-" { print $3 }' <<<"$pins")
  args=(-DRB_PORT="$port" -DRB_BOARD=qemu-netduinoplus2)
  if [[ -n $env_var ]]; then
    src=${!env_var:-}
    if [[ -z $src ]]; then
      echo "left out: $port ($env_var is not set)" >&2
      continue
    fi
    args+=(-DRB_KERNEL_SOURCE="$src" -DRB_KERNEL_VERSION="$version")
  fi
  # uC/OS-III's uC-CPU and uC-LIB, as port-test.sh passes them (else siblings).
  if [[ $port == ucos3 ]]; then
    [[ -n ${RTOSBENCH_KERNEL_UCOS3_CPU:-} ]] && args+=(-DRB_KERNEL_SOURCE_UC_CPU="$RTOSBENCH_KERNEL_UCOS3_CPU")
    [[ -n ${RTOSBENCH_KERNEL_UCOS3_LIB:-} ]] && args+=(-DRB_KERNEL_SOURCE_UC_LIB="$RTOSBENCH_KERNEL_UCOS3_LIB")
  fi
  build=$work/$port
  rm -rf "$build"
  cmake -S "$root/firmware" -B "$build" -G Ninja "${args[@]}" >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log" >&2; fail "configuring $port"; }
  cmake --build "$build" >"$build.build.log" 2>&1 || { tail -30 "$build.build.log" >&2; fail "building $port"; }
  for r in $(seq 1 "$runs"); do
    log=$work/$port-run$r.log
    "$root/scripts/run-qemu.sh" "$build/rtosbench-fw.elf" "$log" 600 || fail "$port run $r: run-qemu.sh failed"
    rc=0
    # The kernel settings the matrices pin (docs/kernels.md, "API checks").
    checks=off
    [[ $port == tencentos ]] && checks=partial
    "$bin" verify "$log" --expect "port=$port" --expect "checks=$checks" --expect lookup=clz --json "$work/$port-run$r.json" >"$work/$port-run$r.verify.txt" || rc=$?
    if [[ -z $defect && $rc -ne 0 ]]; then
      cat "$work/$port-run$r.verify.txt" >&2
      fail "$port run $r: verify exited $rc"
    fi
    if [[ -n $defect ]]; then
      verdicts=$(tr -d ' \n' <"$work/$port-run$r.json" | sed -n 's/.*"verdicts":\[\([^]]*\)\].*/\1/p')
      [[ $rc -eq 1 && $(grep -o '"check":' <<<"$verdicts" | wc -l) -eq 1 ]] &&
        grep -q "CHECK${defect}failed" <<<"$verdicts" ||
        fail "$port run $r: expected only the known defect (CHECK $defect failed), verify exited $rc"
    fi
    grep -E '^(RESULT|PHASE|CHECK|NA),' "$log" >"$work/$port-run$r.stats"
    if [[ $r -gt 1 ]] && ! cmp -s "$work/$port-run1.stats" "$work/$port-run$r.stats"; then
      fail "$port: the statistics of run $r differ from run 1"
    fi
  done
  echo "$port: built, $runs run(s) verified$([[ $runs -gt 1 ]] && echo ', statistics identical')" >&2
  done_ports+=("$port")
done
[[ ${#done_ports[@]} -gt 0 ]] || fail "nothing was run"

# One row per series: "phase/name" -> median / p99 per port, from the RESULT
# lines (verify has re-derived them from RAW above).
cell() { # PORT PHASE NAME
  awk -F'|' '{print $1}' "$work/$1-run1.log" | awk -F, -v ph="$2" -v nm="$3" '
    $1 == "TEST" { phase = "" }
    $1 == "PHASE" { phase = $2 }
    $1 == "RESULT" && $2 == nm && phase == ph {
      for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
      printf "%s / %s", f["median_ticks"], f["p99_ticks"]; found = 1
    }
    $1 == "NA" && $2 == nm { printf "NA"; found = 1 }
    END { if (!found) printf "-" }'
}
{
  echo "Emulated bench (QEMU netduinoplus2, -icount shift=0): **instruction counts, not Cortex-M4 cycles**."
  echo "Each cell: median / p99, raw (ruler baseline not subtracted; ruler_loop median is 4)."
  echo
  printf '| series |'
  for p in "${done_ports[@]}"; do printf ' %s |' "$p"; done
  printf '\n|---|'
  for _ in "${done_ports[@]}"; do printf -- '---:|'; done
  printf '\n'
  for s in /api_overhead /wake_latency /round_trip idle/irq_entry idle/event_to_task busy/irq_entry \
    busy/event_to_task critical/irq_entry critical/event_to_task /time_slice /tick_overhead /queue \
    /mutex_lock_unlock /notify_wake /notify_event_to_task; do
    printf '| %s |' "${s#/}"
    for p in "${done_ports[@]}"; do printf ' %s |' "$(cell "$p" "${s%%/*}" "${s#*/}")"; done
    printf '\n'
  done
  printf '| CHECK mutex_pi |'
  for p in "${done_ports[@]}"; do
    printf ' %s |' "$(grep '^CHECK,mutex_pi,' "$work/$p-run1.log" | cut -d'|' -f1 | sed 's/.*pass=\([0-9]*\),fail=\([0-9]*\),status=\(.*\)/\3 (\1 pass)/')"
  done
  printf '\n\nFootprint (bytes, rtosbench footprint against the bare image):\n\n'
  echo '| kernel | image flash | image ram | delta flash | delta ram | kernel flash | kernel ram | glue flash | glue ram | libc flash |'
  echo '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
  for p in "${done_ports[@]}"; do
    [[ $p == bare ]] && continue
    fp=$("$bin" footprint "$work/$p" "$work/bare" --json)
    num() { sed -n "s/.*\"$1\":{[^}]*\"$2\":\([0-9-]*\).*/\1/p" <<<"$fp"; }
    echo "| $p | $(num image flash) | $(num image ram) | $(num delta flash) | $(num delta ram) |" \
      "$(num kernel flash) | $(num kernel ram) | $(num port_glue flash) | $(num port_glue ram) | $(num libs flash) |"
  done
} | tee "$work/results.md"
