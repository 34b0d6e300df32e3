#!/usr/bin/env bash
# board-fit.sh BOARD PORT ENV_VAR|- RTOSBENCH_BIN REPO_ROOT WORK_DIR GENERATOR MATRIX
#
# Builds PORT's image for a hardware board no test can run (the GD32F103C8,
# the NUCLEO-H5: no board is reachable here) and checks what a build can
# prove: the image links without a warning in the board's code, the image
# links and fits the memory its board's linker script declares (flash: text +
# data; RAM: data, bss and the main stack), and every CONFIG pin of the
# board (`rtosbench kernels expect PORT --board BOARD`) that the build fixes
# equals what the image was compiled with: the core clock, ruler and unit
# (the board's rb_board_hw.h), the crystal, the interrupt levels and the
# kernel's CPU port its recipe names for the board's core (port_variant,
# generated rb_build_config.h); each test keeps at most the board's sample
# cap. The pins only a run reads back (core_measured, irq_hz_measured,
# flash_ws, ...) are listed as such. The pins are the ones
# configs/MATRIX gives the port on BOARD. ENV_VAR names the kernel's source
# (`rtosbench kernels env`), `-` for the bare port; unset: SKIPPED (77).
set -euo pipefail

. "$(dirname "$0")/lib.sh"

[[ $# -eq 8 || $# -eq 9 ]] ||
  fail "usage: $0 BOARD PORT ENV_VAR|- RTOSBENCH_BIN REPO_ROOT WORK_DIR GENERATOR MATRIX [VARIANT]"
board=$1 port=$2 env_var=$3 bin=$4 root=$5 work=$6 gen=$7 matrix=$5/configs/$8
[[ -f $matrix ]] || fail "no matrix $matrix"
[[ -x $bin ]] || fail "rtosbench binary not found: $bin"
bdir=$root/firmware/boards/$board
[[ -f $bdir/board.cmake ]] || fail "no board $board"

args=()
if [[ $env_var != - ]]; then
  port_source "$port" "$env_var"
  extra=()
  port_extra_sources "$port"
  args+=(-DRB_KERNEL_SOURCE="$src" -DRB_KERNEL_VERSION="$(kernel_fact "$port" .version)" "${extra[@]}")
fi

build=$work/$port-$board
rm -rf "$build"
mkdir -p "$work"
# The matrix's request (10000 samples); the board's cap keeps fewer.
port_build "$port" "$build" "$gen" "$port for $board" -DRB_BOARD="$board" -DRB_SAMPLES=10000 \
  -DRB_WARMUP=1000 -DRB_NONCE=5eed0105 "${args[@]}"
[[ -s $build/size.json && -s $build/rtosbench-fw.elf ]] || fail "$build: no image"
if grep -i 'warning:' "$build.build.log" | grep -q "/boards/"; then
  grep -i 'warning:' "$build.build.log" >&2
  fail "the $board board code compiles with warnings"
fi

# ---- fit: the linker script's MEMORY lengths ---------------------------------
ld=$(grep -o '"${RB_BOARD_DIR}/[^"]*\.ld"' "$bdir/board.cmake" | sed 's|"${RB_BOARD_DIR}/||; s|"$||')
[[ -n $ld && -f $bdir/$ld ]] || fail "$board: board.cmake names no linker script of its own"
region_bytes() {
  local len
  len=$(sed -n "s/^ *$1 ([a-z]*) *: *ORIGIN *= *0x[0-9A-Fa-f]*, *LENGTH *= *\([0-9]*[KM]\?\).*/\1/p" "$bdir/$ld")
  [[ -n $len ]] || fail "$ld: no $1 region"
  case $len in
    *K) echo $((${len%K} * 1024)) ;;
    *M) echo $((${len%M} * 1024 * 1024)) ;;
    *) echo "$len" ;;
  esac
}
flash_max=$(region_bytes FLASH)
ram_max=$(region_bytes RAM)
flash=$(jq -r .flash "$build/size.json")
ram=$(jq -r .ram "$build/size.json")
((flash <= flash_max)) || fail "$port on $board: $flash bytes of flash, the part has $flash_max"
((ram <= ram_max)) || fail "$port on $board: $ram bytes of RAM, the part has $ram_max"
echo "$port on $board: flash $flash of $flash_max bytes, RAM $ram of $ram_max (data, bss, main stack)"

# ---- the CONFIG pins the build fixes -----------------------------------------
cfg=$build/generated/rb_build_config.h
define() { # NAME FILE...: the value of a #define, its u suffix and quotes dropped
  local n=$1
  shift
  sed -n "s/^#define $n \(.*\)$/\1/p" "$@" | head -1 | sed 's/^"\(.*\)"$/\1/; s/^\([0-9]*\)u$/\1/'
}
checked=0
runtime=()
while IFS='=' read -r key value; do
  case $key in
    core) got=$(define RB_CORE_HZ "$bdir/rb_board_hw.h") ;;
    counter) got=$(define RB_COUNTER_NAME "$bdir/rb_board_hw.h") ;;
    unit) got=$(define RB_COUNTER_UNIT "$bdir/rb_board_hw.h") ;;
    hse) got=$(define RB_HSE_HZ "$cfg") ;;
    tick_prio | pendsv_prio) got=$(define RB_TICK_PRIO "$cfg") ;;
    irq_prio) got=$(define RB_IRQ_PRIO "$cfg") ;;
    port_variant) got=$(define RB_CFG_PORT_VARIANT "$cfg") ;;
    *)
      runtime+=("$key=$value")
      continue
      ;;
  esac
  [[ $got == "$value" ]] || fail "$port on $board: CONFIG $key would print '$got', the board pins '$value'"
  checked=$((checked + 1))
done < <("$bin" kernels expect "$port" --board "$board" --matrix "$matrix")
((checked >= 6)) || fail "$port on $board: only $checked build-time pins found (counter, unit, core, hse and the levels expected)"
echo "$checked build-time CONFIG pins as the board declares; read back only at run time: ${runtime[*]}"

# Every test keeps at most the board's cap (CONFIG samples.<test>=).
cap=$(sed -n 's/^set(RB_BOARD_SAMPLES_CAP \([0-9]*\)).*/\1/p' "$bdir/board.cmake")
if [[ -n $cap ]]; then
  buf=$(define RB_CFG_BUF_SAMPLES "$cfg")
  [[ $buf == "$cap" ]] || fail "$port on $board: sample buffers of $buf words, the board caps at $cap"
  while read -r name n; do
    ((n <= cap)) || fail "$port on $board: $name keeps $n samples, above the board's $cap"
  done < <(sed -n 's/^#define \(RB_CFG_SAMPLES_[a-z_]*\) \([0-9]*\)u$/\1 \2/p' "$cfg")
  echo "every test keeps at most $cap samples"
fi
