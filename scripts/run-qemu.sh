#!/usr/bin/env bash
# Runs a firmware image on the emulated bench and captures its serial output.
#
#   scripts/run-qemu.sh ELF OUTFILE [TIMEOUT_SECONDS]
#
# Starts qemu-system-arm (machine $RB_QEMU_MACHINE, default netduinoplus2:
# the board's RB_BOARD_QEMU_MACHINE; -icount shift=0,align=off,sleep=off:
# deterministic, one instruction per virtual nanosecond; $RB_QEMU_ICOUNT_SHIFT,
# default 0, is the shift: the board's RB_BOARD_QEMU_ICOUNT_SHIFT, 6 for
# qemu-mps2-an505, one instruction per 64 virtual ns) with USART1 on a
# pipe chardev: its output copied to OUTFILE (QEMU's writes block rather
# than drop), its input given the start line `START` (the firmware waits for
# it after its banner: docs/protocol.md section 1.3). Waits until OUTFILE
# holds an END line, then stops QEMU (the firmware idles forever after END). Exit status: 0 END seen; 124 timeout (default 60 s);
# 1 QEMU exited early or the firmware printed a `!!` fault line; 2 usage.
# QEMU's own messages go to OUTFILE.qemu.log.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 ELF OUTFILE [TIMEOUT_SECONDS]" >&2
  exit 2
fi
elf=$1
out=$2
timeout_s=${3:-60}
if [[ ! -f $elf ]]; then
  echo "run-qemu: no such file: $elf" >&2
  exit 2
fi
if ! [[ $timeout_s =~ ^[0-9]+$ ]] || ((timeout_s == 0)); then
  echo "run-qemu: TIMEOUT_SECONDS must be a positive integer, got '$timeout_s'" >&2
  exit 2
fi
icount_shift=${RB_QEMU_ICOUNT_SHIFT:-0}
if ! [[ $icount_shift =~ ^([0-9]|10)$ ]]; then
  echo "run-qemu: RB_QEMU_ICOUNT_SHIFT must be 0 to 10, got '$icount_shift'" >&2
  exit 2
fi
qemu=${QEMU_SYSTEM_ARM:-qemu-system-arm}
if ! command -v "$qemu" >/dev/null 2>&1; then
  echo "run-qemu: $qemu not found (Debian: apt-get install qemu-system-arm)" >&2
  exit 2
fi

: >"$out"
fifo_dir=$(mktemp -d "${TMPDIR:-/tmp}/run-qemu.XXXXXX")
mkfifo "$fifo_dir/serial.in" "$fifo_dir/serial.out"
# Read-write opens of a FIFO never block. The start line is written only
# once the banner shows the firmware listening (QEMU's USART drops input
# before the firmware enables its receiver), and again about every second
# until BEGIN (rtosbench repeats it every 500 ms).
exec 3<>"$fifo_dir/serial.in"
"$qemu" -M "${RB_QEMU_MACHINE:-netduinoplus2}" -nographic -monitor none \
  -icount "shift=$icount_shift,align=off,sleep=off" \
  -chardev "pipe,id=console,path=$fifo_dir/serial" -serial chardev:console \
  -kernel "$elf" </dev/null >"$out.qemu.log" 2>&1 &
qemu_pid=$!
cat "$fifo_dir/serial.out" >>"$out" &
cat_pid=$!
stop_qemu() {
  if kill -0 "$qemu_pid" 2>/dev/null; then
    kill "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
  fi
  kill "$cat_pid" 2>/dev/null || true
  wait "$cat_pid" 2>/dev/null || true
  exec 3>&-
  rm -rf "$fifo_dir"
}
trap stop_qemu EXIT

deadline=$((SECONDS + timeout_s))
started=0
next_start=0
while :; do
  if ((!started)); then
    if grep -q '^BEGIN,' "$out"; then
      started=1
    elif grep -q '^rtosbench-fw: .*waiting for START' "$out" && ((SECONDS * 10 >= next_start)); then
      printf 'START\n' >&3
      next_start=$((SECONDS * 10 + 5))
    fi
  fi
  # A whole END line (its CRC suffix and line end written), not the first
  # bytes of one: a capture cut inside END fails verify.
  if grep -qE '^END,.*[|][0-9a-f]{8}'$'\r''?$' "$out" && [[ $(tail -c 1 "$out" | od -An -c | tr -d ' ') == '\n' ]]; then
    exit 0
  fi
  if grep -q '^!!' "$out"; then
    echo "run-qemu: the firmware reported a fault:" >&2
    grep '^!!' "$out" | head -3 >&2
    exit 1
  fi
  if ! kill -0 "$qemu_pid" 2>/dev/null; then
    # One last look: QEMU may have written END just before exiting.
    grep -q '^END,' "$out" && exit 0
    echo "run-qemu: QEMU exited before END; see $out.qemu.log" >&2
    exit 1
  fi
  if ((SECONDS >= deadline)); then
    echo "run-qemu: no END line after ${timeout_s}s (output: $(wc -l <"$out") lines)" >&2
    exit 124
  fi
  sleep 0.05
done
