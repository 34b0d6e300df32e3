#!/usr/bin/env bash
# End-to-end test of an emulated twin through the real tool: `rtosbench run`
# of a shipped matrix (configs/qemu-netduino2.yaml: the Cortex-M3 twin of the
# GD32F103C8 with its 20 KB of SRAM) for the bare port and FreeRTOS, or with
# `all`, for every kernel the matrix names whose source is at hand
# (RTOSBENCH_KERNEL_<NAME>; the others are named as skipped). What each must
# give is read from its port directory, for the board's core (`rtosbench
# kernels show NAME --board BOARD`), never listed here:
# - a kernel whose recipe has no CPU port for the core (RB_PORT_CPUS): the
#   job PORT_MISSING with a reason;
# - one with known defects there (kernel.yaml `defects`): INVALID with
#   exactly those problems, each named by its word;
# - any other: OK with a valid capture.
# Each that runs must report in CONFIG port_variant= the CPU port its recipe
# names for the core; every test's kept samples must be the board's cap CAP
# (CONFIG samples.<test>; `-`: a board without one, no such key) while CONFIG
# samples= stays the matrix's; the images must fit the twin's linker script
# (the link) and their RAM must be at most RAM_KB.
#
#   twin-run.sh RTOSBENCH_BIN REPO_ROOT WORK_DIR MATRIX BOARD CAP RAM_KB [all]
#
# FreeRTOS' source comes from RTOSBENCH_KERNEL_FREERTOS (`eval "$(rtosbench
# kernels env)"`); without it the test is SKIPPED (exit 77). Every source the
# environment names is passed (`rtosbench kernels args`: extra sources too).
set -euo pipefail
bin=$1 root=$2 work=$3 matrix=$4 board=$5 cap=$6 ram_kb=$7 which=${8:-}
# shellcheck source=tests/ports/lib.sh
source "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || fail "jq is required"
[[ -n ${RTOSBENCH_KERNEL_FREERTOS:-} ]] || {
  echo "SKIPPED: RTOSBENCH_KERNEL_FREERTOS is not set"
  exit 77
}
mkdir -p "$work"
matrix_copy "$matrix" "$work/matrix.yaml"
mapfile -t args < <("$bin" kernels args)
# has_source NAME: whether the environment names NAME's checkout.
has_source() {
  local var=RTOSBENCH_KERNEL_${1^^}
  [[ -n ${!var:-} ]]
}
kernels=(freertos)
if [[ $which == all ]]; then
  mapfile -t kernels < <("$bin" kernels list --matrix "$work/matrix.yaml" | awk '$NF != "port)" && $1 != "bare" {print $1}')
fi
only=(--only 'bare-*') run_ok=(bare) run_missing=()
declare -A variant=() verdicts=()
for k in "${kernels[@]}"; do
  if ! has_source "$k"; then
    echo "$k: skipped (RTOSBENCH_KERNEL_${k^^} is not set)"
    continue
  fi
  facts=$("$bin" kernels show "$k" --matrix "$work/matrix.yaml" --board "$board")
  only+=(--only "$k-*")
  if [[ $(jq -r '.cpu_port == null' <<<"$facts") == true ]]; then
    run_missing+=("$k")
    continue
  fi
  run_ok+=("$k")
  variant[$k]=$(jq -r .cpu_port <<<"$facts")
  [[ -n ${variant[$k]} ]] || fail "$k: its recipe names no CPU port for $(jq -r .board_cpu <<<"$facts") (RB_PORT_CPUS)"
  verdicts[$k]=$(jq -r '.defects | keys | join(",")' <<<"$facts")
done
rm -rf "$work/runs"
rc=0
"$bin" run --matrix "$work/matrix.yaml" --out "$work/runs" --build-cache "$work/build-cache" \
  --kernel-cache "$work/no-kernel-cache" --build-jobs 1 --no-history "${only[@]}" "${args[@]}" \
  >"$work/run.out" 2>"$work/run.err" || rc=$?
[[ $rc -le 1 ]] || { cat "$work/run.out" "$work/run.err" >&2; fail "rtosbench run exited $rc"; }
d=$(ls -d "$work"/runs/*/ | head -1)
for k in "${run_ok[@]}"; do
  r=$d/jobs/$k-O2-tick1000-fpu0/result.json
  [[ -f $r ]] || fail "$k: no result.json"
  status=$(jq -r .status "$r") reason=$(jq -r '.reason // ""' "$r")
  cap_log=$(ls "$d"/jobs/$k-O2-tick1000-fpu0/attempt-*/capture.raw | tail -1)
  if [[ -n ${verdicts[$k]:-} ]]; then
    [[ $status == INVALID ]] || fail "$k: $status ($reason), not INVALID by its known defects"
    IFS=, read -ra want <<<"${verdicts[$k]}"
    # One "line N: ..." per problem: exactly the known ones, each by its word.
    got=$(grep -o 'line [0-9]*:' <<<"$reason" | wc -l)
    ((got == ${#want[@]})) || fail "$k: $got problems, not ${#want[@]}: $reason"
    for w in "${want[@]}"; do
      [[ $reason == *"$w"* ]] || fail "$k: no '$w' among its problems: $reason"
    done
    vrc=0
    "$bin" verify "$cap_log" >"$work/$k.verify" 2>&1 || vrc=$?
    ((vrc == 1)) || fail "$k: verify exited $vrc, not 1 (invalid)"
  else
    [[ $status == OK ]] || fail "$k: $status: $reason"
    "$bin" verify "$cap_log" >"$work/$k.verify" 2>&1 || fail "$k: verify: $(tail -3 "$work/$k.verify")"
  fi
  config=$(grep '^config:' "$work/$k.verify")
  [[ $config == *" board=$board "* ]] || fail "$k: the capture is not from $board"
  [[ $config == *" samples=$(sed -n 's/^samples: //p' "$work/matrix.yaml") "* ]] ||
    fail "$k: CONFIG samples= is not the matrix's"
  for t in api_overhead wake_latency round_trip; do
    if [[ $cap == - ]]; then # no cap: the test keeps the matrix's samples
      [[ $config != *" samples.$t="* ]] || fail "$k: CONFIG caps $t's samples on a board without a cap"
    else
      [[ $config == *" samples.$t=$cap "* ]] || fail "$k: CONFIG has no samples.$t=$cap"
    fi
  done
  ram=$(jq .build.footprint.ram "$r")
  ((ram <= ram_kb * 1024)) || fail "$k: $ram bytes of RAM, more than $ram_kb KB"
  if [[ -n ${variant[$k]:-} ]]; then
    [[ $config == *" port_variant=${variant[$k]} "* ]] ||
      fail "$k: CONFIG port_variant is not ${variant[$k]}"
  fi
  echo "$k: $status on $board (${variant[$k]:-no kernel}), RAM $ram of $((ram_kb * 1024)) bytes," \
    "flash $(jq .build.footprint.flash "$r")"
done
for k in "${run_missing[@]}"; do
  r=$d/jobs/$k-O2-tick1000-fpu0/result.json
  [[ -f $r ]] || fail "$k: no result.json"
  [[ $(jq -r .status "$r") == PORT_MISSING ]] || fail "$k: $(jq -r .status "$r"), not PORT_MISSING"
  [[ -n $(jq -r '.reason // ""' "$r") ]] || fail "$k: PORT_MISSING without a reason"
  echo "$k: PORT_MISSING ($(jq -r .reason "$r"))"
done
