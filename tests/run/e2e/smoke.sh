#!/usr/bin/env bash
# `rtosbench smoke`: the ruler-only image through the whole pipeline on the
# emulated bench (build, QEMU, start handshake, capture, verify), and what
# its capture says; a board the bench does not have is a usage error.
source "$(dirname "$0")/lib.sh" "$@"
FW=$(cd "$DATA/../../firmware" && pwd)

set +e
"$RB" smoke --bench "$DATA/run/benches/qemu1.yaml" --firmware "$FW" --out "$WORK/smoke" \
  --build-cache "$CACHE" >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
OUT=$(<"$WORK/out.txt")
expect_eq "exit code" 0 "$RC"
expect_contains "the board is OK" "(qemu-netduinoplus2, qemu): OK" "$OUT"
expect_contains "debugger" "debugger       0" "$OUT"
expect_contains "started by the host" "start          host" "$OUT"
expect_contains "chip not readable under QEMU" "chip           not readable on this board" "$OUT"
expect_contains "the rate" "serial         115200 baud (firmware: 115200)" "$OUT"
d=$(run_dir "$WORK/smoke")
r=$(ls "$d"/jobs/*/result.json)
expect_eq "the job ran the ruler only" ruler "$(jq -r '[.series[].name] | map(select(startswith("ruler"))) | length > 0' "$r" | sed 's/true/ruler/')"
expect_eq "the capture is valid" OK "$(jq -r .status "$r")"
# Issue 30: smoke holds the bench to what a run pins: the board's own pins
# and the shipped matrix's `expect:` (configs/qemu.yaml for this board).
expect_eq "the shipped matrix's pins are pinned" "clz 0" "$(jq -r '"\(.expect.lookup) \(.expect.debugger)"' "$r")"
expect_eq "the board's own pins too" "instructions" "$(jq -r .expect.unit "$r")"
expect_contains "smoke says where its pins come from" "configs/qemu.yaml's)" "$OUT"

set +e
"$RB" smoke --bench "$DATA/run/benches/qemu1.yaml" --board nope --firmware "$FW" --out "$WORK/smoke" \
  --build-cache "$CACHE" >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "unknown board: usage" 64 "$RC"
expect_contains "says which" "no board 'nope'" "$(<"$WORK/err.txt")"
finish
