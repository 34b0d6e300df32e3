#!/usr/bin/env bash
# Test: the start handshake of the real firmware under QEMU (docs/protocol.md
# section 1.3). The image prints its banner and waits: however late the
# reader comes, nothing but banners precedes the start; a START with another
# image's nonce is refused and the image keeps waiting; `START <nonce>`
# starts it, BEGIN follows, CONFIG says start=host, and the log verifies.
# The tick-paced tests announce their silent windows (TEST ...,quiet_ms=).
#   handshake.sh RTOSBENCH_BIN ELF NONCE WORK_DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bin=$1 elf=$2 nonce=$3 work=$4
[[ -f $elf ]] || fail "no firmware image: $elf (the build fixture failed?)"
rm -rf "$work"
mkdir -p "$work"
mkfifo "$work/serial.in" "$work/serial.out"
exec 3<>"$work/serial.in"
out=$work/serial.log
qemu-system-arm -M netduinoplus2 -nographic -monitor none -icount shift=0,align=off,sleep=off \
  -chardev "pipe,id=console,path=$work/serial" -serial chardev:console \
  -kernel "$elf" </dev/null >"$work/qemu.log" 2>&1 &
qemu=$!
cat "$work/serial.out" >"$out" &
reader=$!
trap 'kill $qemu $reader 2>/dev/null || true; wait 2>/dev/null || true' EXIT

wait_for() { # wait_for REGEX SECONDS: until the log has a line matching REGEX
  local deadline=$((SECONDS + $2))
  until grep -qE "$1" "$out"; do
    ((SECONDS < deadline)) || fail "no line matching '$1' after $2 s; log: $(head -c 400 "$out")"
    sleep 0.1
  done
}

# A late reader: two seconds without a start line.
wait_for '^rtosbench-fw: .*nonce='"$nonce"' waiting for START' 30
sleep 2
grep -q '^BEGIN' "$out" && fail "BEGIN before any start line"
echo "ok: the image waits (only its banner: $(grep -c . "$out") line(s))"

printf 'START ffffffff\n' >&3
wait_for 'START refused' 30
sleep 1
grep -q '^BEGIN' "$out" && fail "BEGIN after a START with another nonce"
echo "ok: another image's nonce is refused and the image keeps waiting"

printf 'START %s\n' "$nonce" >&3
wait_for '^END,' 120
grep -q '^BEGIN,RTOS_BENCH_V2' "$out" || fail "no BEGIN"
grep -qE '^CONFIG,.*,start=host,' "$out" || fail "CONFIG does not say start=host"
"$bin" verify "$out" --expect "nonce=$nonce" --expect start=host >"$work/verify.txt" 2>&1 ||
  { cat "$work/verify.txt" >&2; fail "the log does not verify"; }
echo "ok: START $nonce started it: BEGIN, start=host, the log verifies"

# The clock pins: a capture whose core_measured is not the pinned clock is
# INVALID and says why (configs/f407.yaml pins 168000000; QEMU reports n/a).
set +e
"$bin" verify "$out" --expect core_measured=168000000 >"$work/pin.txt" 2>&1
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$work/pin.txt" >&2; fail "a core_measured other than the pin: exit $rc, not 1"; }
grep -q "core_measured" "$work/pin.txt" || { cat "$work/pin.txt" >&2; fail "the reason does not name core_measured"; }
echo "ok: core_measured other than the pinned clock: INVALID, naming the key"

# Each tick-paced test announces its silent window: one tick per sample.
tick=$(grep -oE '^CONFIG,.*[,]tick=[0-9]+' "$out" | grep -oE 'tick=[0-9]+' | head -1 | cut -d= -f2)
for t in time_slice tick_overhead; do
  n=$(grep -oE "samples\.$t=[0-9]+" "$out" | cut -d= -f2)
  w=$(grep -oE "warmup\.$t=[0-9]+" "$out" | cut -d= -f2)
  want=$((((w + n + 2) * 1000 + tick - 1) / tick))
  grep -qE "^TEST,$t,quiet_ms=$want[|]" "$out" ||
    fail "TEST,$t does not announce quiet_ms=$want: $(grep "^TEST,$t" "$out")"
  echo "ok: TEST,$t announces quiet_ms=$want ($w + $n samples at $tick Hz)"
done
