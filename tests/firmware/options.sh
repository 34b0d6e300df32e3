#!/usr/bin/env bash
# Test: the firmware's CMake rejects what it cannot build, naming the
# problem and the allowed values, and a kernel port without its source is a
# clear error.
#   options.sh FIRMWARE_SRC WORK_DIR GENERATOR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
src=$1 work=$2 gen=$3
rm -rf "$work"
mkdir -p "$work"

# expect_reject NAME PATTERN -D...: configuring must fail and print PATTERN.
expect_reject() {
  local name=$1 pattern=$2
  shift 2
  local rc=0
  cmake -S "$src" -B "$work/$name" -G "$gen" "$@" >"$work/$name.log" 2>&1 || rc=$?
  [[ $rc -ne 0 ]] || fail "$name: configuring with $* succeeded; it must fail"
  # CMake wraps long messages: compare with line breaks folded to spaces.
  tr -s ' \n' '  ' <"$work/$name.log" >"$work/$name.flat"
  grep -q -- "$pattern" "$work/$name.flat" || {
    cat "$work/$name.log" >&2
    fail "$name: the error does not say '$pattern'"
  }
  echo "ok: $name rejected: $(grep -o -- "$pattern[^.]*" "$work/$name.flat" | head -1 | sed -E "s/ (--|Call Stack).*//")"
}

expect_reject bad_port "is not a port; allowed values: bare," -DRB_PORT=nosuchkernel
# Every board directory of the tree, whatever they are today.
boards=$(find "$src/boards" -mindepth 2 -maxdepth 2 -name board.cmake | sed 's|/board.cmake$||; s|.*/||' | LC_ALL=C sort | paste -sd, | sed 's/,/, /g')
expect_reject bad_board "allowed values: $boards" -DRB_BOARD=nosuchboard
expect_reject bad_test "unknown test 'nosuchtest'" "-DRB_TESTS=ruler,nosuchtest"
expect_reject bad_fpu "RB_FPU_CONTEXT='2'" -DRB_FPU_CONTEXT=2
expect_reject bad_nonce "must be a hex string" -DRB_NONCE=xyz
expect_reject bad_samples "does not fit in the RAM" -DRB_SAMPLES=50000
expect_reject bad_tick "RB_TICK_HZ='0'" -DRB_TICK_HZ=0
expect_reject bad_version "must not contain ','" "-DRB_KERNEL_VERSION=1,2"

# The kernel-source check every kernel port calls, driven by a cmake script.
cat >"$work/kernel_source.cmake" <<CMAKE
list(APPEND CMAKE_MODULE_PATH "$src/cmake")
include(rb_port_helpers)
set(RB_PORT freertos)
rb_require_kernel_source(FILES tasks.c include/FreeRTOS.h HINT "a kernel checkout")
message(STATUS "kernel source accepted: \${RB_KERNEL_SOURCE}")
CMAKE
check_source() {
  local name=$1 want_rc=$2 pattern=$3 dir=$4
  local rc=0
  cmake -DRB_KERNEL_SOURCE="$dir" -P "$work/kernel_source.cmake" >"$work/$name.log" 2>&1 || rc=$?
  if [[ $want_rc -eq 0 && $rc -ne 0 ]] || [[ $want_rc -ne 0 && $rc -eq 0 ]]; then
    cat "$work/$name.log" >&2
    fail "$name: exit $rc"
  fi
  tr -s ' \n' '  ' <"$work/$name.log" >"$work/$name.flat"
  grep -q -- "$pattern" "$work/$name.flat" || {
    cat "$work/$name.log" >&2
    fail "$name: output does not say '$pattern'"
  }
  echo "ok: $name: $(grep -o -- "$pattern[^.]*" "$work/$name.flat" | head -1 | sed -E "s/ (--|Call Stack).*//")"
}
mkdir -p "$work/fake-kernel/include"
check_source source_empty 1 "RB_KERNEL_SOURCE is empty" ""
check_source source_not_dir 1 "is not a directory" "$work/no-such-dir"
check_source source_incomplete 1 "has no 'tasks.c'" "$work/fake-kernel"
touch "$work/fake-kernel/tasks.c" "$work/fake-kernel/include/FreeRTOS.h"
check_source source_complete 0 "kernel source accepted" "$work/fake-kernel"
