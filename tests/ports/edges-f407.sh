#!/usr/bin/env bash
# edges-f407.sh REPO_ROOT WORK_DIR GENERATOR
#
# The edge variant's images for the STM32F407G-DISC1 (no board is reachable
# here, so no run): the bare port and FreeRTOS (when RTOSBENCH_KERNEL_FREERTOS
# names its source) build with RB_EDGES=on without a warning in the harness
# or the board code, link within the part's 1 MB of flash and 128 KB of SRAM
# (stm32f4.ld), carry the board's three pins for CONFIG (edge_mk=, edge_ev=,
# edge_tk=, edge_pins=gpio) and link the board's edge functions; the
# RB_EDGES=off image links none of them (the variant leaves it alone).
set -euo pipefail
root=$1 work=$2 gen=$3
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
command -v jq >/dev/null || fail "jq is required"
ports=(bare)
[[ -n ${RTOSBENCH_KERNEL_FREERTOS:-} ]] && ports+=(freertos) ||
  echo "freertos: skipped (RTOSBENCH_KERNEL_FREERTOS is not set)"
bcm=$root/firmware/boards/stm32f407-disco/board.cmake
pin() { sed -n "s/^set(RB_BOARD_EDGE_$1 \"\(.*\)\")$/\1/p" "$bcm"; }
mk=$(pin MK) ev=$(pin EV) tk=$(pin TK)
[[ -n $mk && -n $ev && -n $tk ]] || fail "board.cmake names no RB_BOARD_EDGE_MK/EV/TK"
[[ $ev == *TIM1_CH1* ]] || fail "EV ($ev) is not TIM1's channel 1, the event timer's output"
mkdir -p "$work"
for port in "${ports[@]}"; do
  for e in off on; do
    b=$work/$port-$e
    rm -rf "$b"
    args=(-DRB_PORT="$port" -DRB_BOARD=stm32f407-disco -DRB_EDGES=$e -DRB_NONCE=5eed0105)
    [[ $port == freertos ]] && args+=(-DRB_KERNEL_SOURCE="$RTOSBENCH_KERNEL_FREERTOS")
    cmake -S "$root/firmware" -B "$b" -G "$gen" "${args[@]}" >"$b.configure.log" 2>&1 ||
      { cat "$b.configure.log" >&2; fail "configuring $port edges=$e failed"; }
    cmake --build "$b" >"$b.build.log" 2>&1 || { tail -40 "$b.build.log" >&2; fail "building $port edges=$e failed"; }
    if grep -i 'warning:' "$b.build.log" | grep -q '/harness/\|/boards/'; then
      grep -i 'warning:' "$b.build.log" >&2
      fail "$port edges=$e: the harness or board code compiles with warnings"
    fi
    flash=$(jq -r .flash "$b/size.json") ram=$(jq -r .ram "$b/size.json")
    ((flash <= 1024 * 1024)) || fail "$port edges=$e: $flash bytes of flash"
    ((ram <= 128 * 1024)) || fail "$port edges=$e: $ram bytes of RAM"
    syms=$(arm-none-eabi-nm "$b/rtosbench-fw.elf" | grep -c ' rb_board_edge_' || true)
    if [[ $e == on ]]; then
      ((syms >= 6)) || fail "$port edges=on: the image links $syms of the board's 6 edge functions"
      for s in "$mk" "$ev" "$tk" edge_pins; do
        grep -aq -- "$s" "$b/rtosbench-fw.elf" || fail "$port edges=on: the image does not carry '$s' for CONFIG"
      done
      grep -q '^#define RB_CFG_EDGE_PINS "gpio"$' "$b/generated/rb_build_config.h" ||
        fail "$port edges=on: edge_pins is not gpio"
    else
      ((syms == 0)) || fail "$port edges=off: the image links $syms edge functions"
    fi
    echo "$port edges=$e on stm32f407-disco: flash $flash, RAM $ram bytes, $syms edge functions"
  done
done
