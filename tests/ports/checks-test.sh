#!/usr/bin/env bash
# End-to-end test that RB_CHECKS reaches a kernel's own configuration: builds
# one port twice for qemu-netduinoplus2, with RB_CHECKS=off and RB_CHECKS=on
# (one series, few samples), runs both under QEMU and requires
#   - `rtosbench verify` to accept each log with the pins the matrices use:
#     checks=off / checks=on, and lookup=clz, or what the kernel's
#     kernel.yaml pins instead (TencentOS checks=partial). The port
#     derives CONFIG checks= from the kernel's own macros (e.g. ThreadX'
#     TX_DISABLE_ERROR_CHECKING), so a define that stops short of the
#     kernel's configuration header fails here;
#   - the `on` image's median of the kernel's checks_series (kernel.yaml;
#     api_overhead unless its checks sit elsewhere, as LiteOS-M's in the task
#     switch) to exceed the `off` image's: the kernel code on the measured
#     path really changed, not only a string.
#
#   checks-test.sh PORT ENV_VAR RTOSBENCH_BIN REPO_ROOT WORK_DIR GENERATOR
#
# The kernel source comes from ENV_VAR as in port-test.sh (unset: exit 77,
# reported as skipped); the bare port (ENV_VAR "-") needs none.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

port=$1 env_var=$2 bin=$3 root=$4 work=$5 gen=$6
[[ -x $bin ]] || fail "rtosbench binary not found: $bin"
extra=()
if [[ $port != bare ]]; then # bare: no kernel source (ENV_VAR is "-")
  version=$(kernel_fact "$port" .version)
  [[ -n $version && $version != n/a ]] || fail "firmware/ports/$port/kernel.yaml pins no version"
  port_source "$port" "$env_var"
  extra+=("-DRB_KERNEL_SOURCE=$src" "-DRB_KERNEL_VERSION=$version")
  port_extra_sources "$port"
fi

# The series compared: where the kernel's switchable checks cost (kernel.yaml
# checks_series: api_overhead, a sem give + take without a switch, unless they
# sit elsewhere).
series=$(kernel_fact "$port" .checks_series)

mkdir -p "$work"
declare -A median
for checks in off on; do
  build=$work/$port-checks-$checks
  rm -rf "$build"
  port_build "$port" "$build" "$gen" "$port with RB_CHECKS=$checks" -DRB_BOARD=qemu-netduinoplus2 \
    -DRB_CHECKS=$checks -DRB_TESTS=$series -DRB_SAMPLES=200 -DRB_WARMUP=20 -DRB_NONCE=c4ec0001 "${extra[@]}"
  log=$build.log
  rc=0
  "$root/scripts/run-qemu.sh" "$build/rtosbench-fw.elf" "$log" 300 || rc=$?
  [[ $rc -eq 0 ]] || { tail -5 "$log" >&2; fail "RB_CHECKS=$checks: run-qemu.sh exited $rc"; }
  want=$checks
  [[ $checks == off ]] && want=$(kernel_fact "$port" '.expect.checks // "off"')
  lookup=$(kernel_fact "$port" '.expect.lookup // "clz"')
  rc=0
  "$bin" verify "$log" --expect "checks=$want" --expect "lookup=$lookup" --expect "port=$port" \
    --expect nonce=c4ec0001 >"$build.verify.txt" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    grep -E '^CONFIG,' "$log" | cut -d'|' -f1 >&2
    cat "$build.verify.txt" >&2
    fail "RB_CHECKS=$checks: rtosbench verify exited $rc (CONFIG checks=$want and lookup=$lookup required)"
  fi
  median[$checks]=$(grep -E "^RESULT,$series," "$log" | sed -nE 's/.*,median_ticks=([0-9]+),.*/\1/p')
  [[ ${median[$checks]} =~ ^[0-9]+$ ]] || fail "RB_CHECKS=$checks: no $series median in $log"
  echo "$port RB_CHECKS=$checks: CONFIG checks=$want lookup=$lookup, $series median ${median[$checks]}"
done
((median[on] > median[off])) ||
  fail "$series with checks on (${median[on]}) is not above checks off (${median[off]}):" \
    "RB_CHECKS did not change the kernel's code"
echo "checks on cost $((median[on] - median[off])) instructions per $series sample"
