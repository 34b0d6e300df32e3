#!/usr/bin/env bash
# End-to-end test of an emulated twin through the real tool: `rtosbench run`
# of a shipped matrix (configs/qemu-netduino2.yaml: the Cortex-M3 twin of the
# GD32F103C8 with its 20 KB of SRAM) for the bare port and FreeRTOS, whose
# recipe picks its CPU port from the board's core. Both jobs must be OK with
# a valid capture; FreeRTOS must report the CPU port the board's core calls
# for; every test's kept samples must be the board's cap CAP (CONFIG
# samples.<test>; `-`: a board without one, no such key) while CONFIG
# samples= stays the matrix's; the images must
# fit the twin's linker script (the link) and their RAM must be at most
# RAM_KB. The kernel ports of PORTED (NAME=PORT_VARIANT, space-separated)
# are run too when their source is at hand (RTOSBENCH_KERNEL_<NAME>), each
# checked like FreeRTOS and its CONFIG port_variant= against the CPU port the
# board's core calls for (a `+` in PORT_VARIANT stands for a space); a
# kernel of MISSING, when its source is at hand,
# must be PORT_MISSING with a reason. A kernel of DEFECTIVE
# (NAME=PORT_VARIANT:VERDICT,VERDICT...) is checked like a ported one but must
# be INVALID with exactly those verdicts, each named by a word of its
# problem (a kernel defect the harness finds, docs/kernels.md). A kernel
# whose source is absent is named as skipped, the others still checked.
#
#   twin-run.sh RTOSBENCH_BIN REPO_ROOT WORK_DIR MATRIX BOARD CPU_PORT CAP RAM_KB \
#               [PORTED [MISSING [DEFECTIVE]]]
#
# FreeRTOS' source comes from RTOSBENCH_KERNEL_FREERTOS (`eval "$(rtosbench
# kernels env)"`); without it the test is SKIPPED (exit 77). Every source the
# environment names is passed (`rtosbench kernels args`: extra sources too).
set -euo pipefail
bin=$1 root=$2 work=$3 matrix=$4 board=$5 cpu_port=$6 cap=$7 ram_kb=$8
ported=${9:-} missing=${10:-} defective=${11:-}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
command -v jq >/dev/null || fail "jq is required"
[[ -n ${RTOSBENCH_KERNEL_FREERTOS:-} ]] || {
  echo "SKIPPED: RTOSBENCH_KERNEL_FREERTOS is not set"
  exit 77
}
mapfile -t args < <("$bin" kernels args)
only=(--only 'bare-*' --only 'freertos-*')
# has_source NAME: whether the environment names NAME's checkout.
has_source() {
  local var=RTOSBENCH_KERNEL_${1^^}
  [[ -n ${!var:-} ]]
}
run_ok=(bare freertos) run_missing=()
declare -A variant=([freertos]=GCC/$cpu_port)
for kv in $ported; do
  k=${kv%%=*}
  if has_source "$k"; then
    run_ok+=("$k")
    variant[$k]=${kv#*=}
    variant[$k]=${variant[$k]//+/ } # `+`: a space in the port_variant
    only+=(--only "$k-*")
  else
    echo "$k: skipped (RTOSBENCH_KERNEL_${k^^} is not set)"
  fi
done
declare -A verdicts=()
for kv in $defective; do
  k=${kv%%=*} v=${kv#*=}
  if has_source "$k"; then
    run_ok+=("$k")
    variant[$k]=${v%%:*}
    verdicts[$k]=${v#*:}
    only+=(--only "$k-*")
  else
    echo "$k: skipped (RTOSBENCH_KERNEL_${k^^} is not set)"
  fi
done
for k in $missing; do
  if has_source "$k"; then
    run_missing+=("$k")
    only+=(--only "$k-*")
  else
    echo "$k: skipped (RTOSBENCH_KERNEL_${k^^} is not set)"
  fi
done
mkdir -p "$work"
sed -e "s|^firmware: .*|firmware: $root/firmware|" \
  -e "s|^bench: \(.*\)|bench: $root/configs/\1|" "$root/configs/$matrix" >"$work/matrix.yaml"
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
