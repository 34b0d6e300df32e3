#!/usr/bin/env bash
# edges-test.sh RTOSBENCH_BIN REPO_ROOT WORK_DIR
#
# The edge variant (issue 32; docs/firmware.md, "Edges") on the emulated
# bench through the real tool: `rtosbench run` of configs/qemu.yaml with
# `variants.edges: [off, on]` (2000 samples, 200 warm-up) for the bare port
# and FreeRTOS on qemu-netduinoplus2. Every job must be OK; the edges job's
# id ends in -edges and its capture's CONFIG says edges=on and
# edge_pins=emulated, the other's edges=off. Then the point of the variant:
# every series both jobs report has the same median (QEMU counts
# instructions, so a GPIO write that sat inside a window would show), and a
# series only the edges-off job has belongs to a test the edges build
# reports NA for its tick hook (tick_overhead, time_slice, idle_occupancy:
# RB_PLAIN_TICK_HOOK).
# FreeRTOS' source comes from RTOSBENCH_KERNEL_FREERTOS (`rtosbench kernels
# env`); without it the test is SKIPPED (exit 77).
set -euo pipefail
bin=$1 root=$2 work=$3
# shellcheck source=tests/ports/lib.sh
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || fail "jq is required"
[[ -x $bin ]] || fail "rtosbench binary not found: $bin"
[[ -n ${RTOSBENCH_KERNEL_FREERTOS:-} ]] || {
  echo "SKIPPED: RTOSBENCH_KERNEL_FREERTOS is not set"
  exit 77
}
mapfile -t args < <("$bin" kernels args)
mkdir -p "$work"
matrix_copy qemu.yaml "$work/matrix.yaml" \
  -e 's|^samples: .*|samples: 2000|' -e 's|^warmup: .*|warmup: 200|' \
  -e 's|^  checks: \[off\]$|  checks: [off]\n  edges: [off, on]|'
grep -q '^  edges: \[off, on\]$' "$work/matrix.yaml" || fail "configs/qemu.yaml: no variants.checks line to add edges after"
rm -rf "$work/runs"
rc=0
"$bin" run --matrix "$work/matrix.yaml" --out "$work/runs" --build-cache "$work/build-cache" \
  --kernel-cache "$work/no-kernel-cache" --build-jobs 1 --no-history \
  --only 'bare-*' --only 'freertos-*' "${args[@]}" >"$work/run.out" 2>"$work/run.err" || rc=$?
[[ $rc -le 1 ]] || { cat "$work/run.out" "$work/run.err" >&2; fail "rtosbench run exited $rc"; }
d=$(ls -d "$work"/runs/*/ | head -1)

# median_of RESULT_JSON: "phase/name median" per series, sorted.
medians() {
  jq -r '.series[] | "\(.phase // "")/\(.name) \(.median_ticks)"' "$1" | sort
}
compared=0
for k in bare freertos; do
  off=$d/jobs/$k-O2-tick1000-fpu0 on=$d/jobs/$k-O2-tick1000-fpu0-edges
  for j in "$off" "$on"; do
    [[ -f $j/result.json ]] || fail "$(basename "$j"): no result.json"
    st=$(jq -r .status "$j/result.json")
    [[ $st == OK ]] || fail "$(basename "$j"): $st: $(jq -r '.reason // ""' "$j/result.json")"
  done
  cap_off=$(ls "$off"/attempt-*/capture.raw | tail -1)
  cap_on=$(ls "$on"/attempt-*/capture.raw | tail -1)
  grep -aq '^CONFIG,edges=off' "$cap_off" || fail "$k: the edges-off capture has no CONFIG edges=off"
  grep -aq '^CONFIG,edges=on,.*edge_pins=emulated' "$cap_on" ||
    fail "$k: the edges capture has no CONFIG edges=on with edge_pins=emulated"
  medians "$off/result.json" >"$work/$k.off"
  medians "$on/result.json" >"$work/$k.on"
  [[ -s $work/$k.on ]] || fail "$k: the edges job reports no series"
  # Same series, same median.
  while read -r series m_on; do
    m_off=$(awk -v s="$series" '$1 == s { print $2 }' "$work/$k.off")
    [[ -n $m_off ]] || fail "$k: series $series only in the edges build"
    [[ $m_off == "$m_on" ]] || fail "$k: $series median $m_off without edges, $m_on with: a write sits inside its window"
    compared=$((compared + 1))
  done <"$work/$k.on"
  # A series the edges build lacks: only of the tests it reports NA for its tick hook.
  while read -r series _; do
    grep -q "^$series " "$work/$k.on" && continue
    case $series in
      /tick_irq_empty | /irq_dispatch | /tick_overhead) test=tick_overhead ;;
      /time_slice) test=time_slice ;;
      /idle_time) test=idle_occupancy ;;
      *) fail "$k: series $series is missing from the edges build" ;;
    esac
    grep -aq "^NA,$test,reason=.*plain tick hook" "$cap_on" ||
      fail "$k: $series is missing from the edges build without $test's NA for its tick hook"
  done <"$work/$k.off"
  echo "$k: $(wc -l <"$work/$k.on") series, every median equal with edges on and off"
done
((compared > 20)) || fail "only $compared series compared: FreeRTOS ran too few tests"
echo "edges: $compared medians equal on qemu-netduinoplus2"
