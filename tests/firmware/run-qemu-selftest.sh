#!/usr/bin/env bash
# Test: scripts/run-qemu.sh's exit statuses: 124 when no END arrives in time,
# 1 (early, with the line) when the firmware prints a `!!` fault line, 2 on
# bad usage.
#   run-qemu-selftest.sh REPO_ROOT SLOW_ELF WORK_DIR
# SLOW_ELF: an image that needs more than 3 s to reach END (the bare firmware
# needs about 7). 3 s, not 1: on a loaded machine QEMU may print nothing in
# its first second, and the test needs some capture before the timeout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
root=$1 slow_elf=$2 work=$3
run=$root/scripts/run-qemu.sh
rm -rf "$work"
mkdir -p "$work"

rc=0
"$run" "$slow_elf" "$work/timeout.log" 3 2>"$work/timeout.err" || rc=$?
[[ $rc -eq 124 ]] || fail "timeout: exit $rc, expected 124"
grep -q 'no END line after 3s' "$work/timeout.err" || fail "timeout: message missing"
[[ -s $work/timeout.log ]] || fail "timeout: nothing captured before the timeout"
echo "ok: timeout -> 124 ($(wc -l <"$work/timeout.log") lines captured)"

arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -O2 -nostdlib -nostartfiles \
  -T "$(dirname "$0")/data/fault.ld" "$(dirname "$0")/data/fault.c" -o "$work/fault.elf"
rc=0
start=$SECONDS
"$run" "$work/fault.elf" "$work/fault.log" 60 2>"$work/fault.err" || rc=$?
[[ $rc -eq 1 ]] || fail "fault: exit $rc, expected 1"
((SECONDS - start < 30)) || fail "fault: took $((SECONDS - start)) s; it must stop at the fault line"
grep -q '^!! hardfault' "$work/fault.err" || fail "fault: the fault line is not reported"
echo "ok: fault line -> 1: $(grep -m1 '^!!' "$work/fault.err")"

rc=0
"$run" "$work/no-such.elf" "$work/x.log" 2>/dev/null || rc=$?
[[ $rc -eq 2 ]] || fail "missing ELF: exit $rc, expected 2"
rc=0
"$run" "$slow_elf" 2>/dev/null || rc=$?
[[ $rc -eq 2 ]] || fail "missing OUTFILE: exit $rc, expected 2"
echo "ok: usage errors -> 2"
