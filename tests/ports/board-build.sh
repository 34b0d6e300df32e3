#!/usr/bin/env bash
# Builds (links) one port's image for a hardware board that has no emulated
# run here, and checks what a link alone can show:
#
#   board-build.sh BOARD PORT ENV_VAR REPO_ROOT WORK_DIR GENERATOR FLASH_KB RAM_KB VARIANT
#
# the image links without a warning in the board's or the port's code, its
# size.json fits the part's FLASH_KB of flash and RAM_KB of SRAM (the board's
# linker script says so too: a link that overflows fails before), and the
# image's strings name the kernel CPU port VARIANT (CONFIG port_variant=;
# `-` for none: the bare port). The kernel source comes from ENV_VAR (`-` for none); unset:
# exit 77 (skipped).
set -euo pipefail

. "$(dirname "$0")/lib.sh"

board=$1 port=$2 env_var=$3 root=$4 work=$5 gen=$6 flash_kb=$7 ram_kb=$8 variant=$9
args=()
if [[ $env_var != - ]]; then
  src=${!env_var:-}
  if [[ -z $src ]]; then
    echo "SKIP: $env_var is not set (the $port kernel source)"
    exit 77
  fi
  [[ -d $src ]] || fail "$env_var=$src is not a directory"
  args+=(-DRB_KERNEL_SOURCE="$src")
fi
build=$work/$port-$board
rm -rf "$build"
mkdir -p "$work"
port_build "$port" "$build" "$gen" "$port for $board" -DRB_BOARD="$board" -DRB_NONCE=5eed0105 "${args[@]}"
if grep -i 'warning:' "$build.build.log" | grep -q "/boards/"; then
  grep -i 'warning:' "$build.build.log" >&2
  fail "the $board board code compiles with warnings"
fi
flash=$(jq -r .flash "$build/size.json")
ram=$(jq -r .ram "$build/size.json")
((flash > 0 && flash <= flash_kb * 1024)) || fail "$port on $board: flash $flash bytes, the part has ${flash_kb} KB"
((ram > 0 && ram <= ram_kb * 1024)) || fail "$port on $board: RAM $ram bytes, the part has ${ram_kb} KB"
if [[ $variant != - ]]; then
  grep -aq "$variant" "$build/rtosbench-fw.elf" ||
    fail "$port on $board: the image names no port_variant $variant"
fi
echo "OK: $port on $board links: flash $flash of ${flash_kb} KB, RAM $ram of ${ram_kb} KB"
