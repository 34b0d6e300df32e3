#!/usr/bin/env bash
# edges-sequence.sh REPO_ROOT WORK_DIR GENERATOR
#
# The edge writes in the order EDGE PROTOCOL v1 needs them (docs/firmware.md,
# "Edges"), read back from QEMU: the AN505 twin's edge channels are stores to
# GPIO ports QEMU maps as unimplemented devices, and `-d unimp` logs every
# store there. A FreeRTOS edges image runs wake_latency, irq_latency and
# tick_drift; replaying the logged stores must give one MK pulse per
# edge-mapped series in the order of their RESULT lines (wake_latency, the
# three event_to_task phases, tick_period), and inside each pulse one EV
# rising edge (forced, or armed for the compare match) and one TK rising edge
# per kept sample, or n + 1 TK toggles for tick_period's n periods.
# FreeRTOS' source comes from RTOSBENCH_KERNEL_FREERTOS; without it SKIPPED (77).
set -euo pipefail
root=$1 work=$2 gen=$3
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
[[ -n ${RTOSBENCH_KERNEL_FREERTOS:-} ]] || {
  echo "SKIPPED: RTOSBENCH_KERNEL_FREERTOS is not set"
  exit 77
}
command -v qemu-system-arm >/dev/null || fail "qemu-system-arm is required"
mkdir -p "$work"
b=$work/freertos-an505-edges
rm -rf "$b"
cmake -S "$root/firmware" -B "$b" -G "$gen" -DRB_PORT=freertos -DRB_BOARD=qemu-mps2-an505 \
  -DRB_EDGES=on -DRB_KERNEL_SOURCE="$RTOSBENCH_KERNEL_FREERTOS" -DRB_SAMPLES=500 -DRB_WARMUP=50 \
  -DRB_TESTS=wake_latency,irq_latency,tick_drift >"$b.configure.log" 2>&1 ||
  { cat "$b.configure.log" >&2; fail "configuring the edges image failed"; }
cmake --build "$b" >"$b.build.log" 2>&1 || { tail -40 "$b.build.log" >&2; fail "building the edges image failed"; }
cat >"$work/qemu-unimp.sh" <<EOF
#!/bin/sh
exec qemu-system-arm -d unimp -D "$work/unimp.log" "\$@"
EOF
chmod +x "$work/qemu-unimp.sh"
rm -f "$work/unimp.log"
shift_=$(sed -n 's/^set(RB_BOARD_QEMU_ICOUNT_SHIFT \([0-9]*\)).*/\1/p' "$root/firmware/boards/qemu-mps2-an505/board.cmake")
QEMU_SYSTEM_ARM=$work/qemu-unimp.sh RB_QEMU_MACHINE=mps2-an505 RB_QEMU_ICOUNT_SHIFT=$shift_ \
  "$root/scripts/run-qemu.sh" "$b/rtosbench-fw.elf" "$work/capture.log" 600 ||
  fail "the edges image did not run to END"
[[ -s $work/unimp.log ]] || fail "QEMU logged no store to the GPIO ports"
/usr/bin/python3 - "$work/unimp.log" "$work/capture.log" <<'EOF'
import re, sys
port = {"gpio0": "mk", "gpio1": "ev", "gpio2": "tk"}
level = {"mk": 0, "ev": 0, "tk": 0}
pulses, cur = [], None
for line in open(sys.argv[1]):
    m = re.match(r"(gpio[012]): unimplemented device write \(size 4, offset 0x004, value 0x([0-9a-f]+)\)", line)
    if not m:
        continue
    ch, v = port[m.group(1)], int(m.group(2), 16)
    if ch == "mk":
        if v and not level["mk"]:
            cur = {"ev": 0, "tk_rise": 0, "tk_edges": 0}
        elif not v and level["mk"]:
            pulses.append(cur)
            cur = None
    elif cur is not None:
        # EV: 1 forced high (wake_latency), 2 armed for the next compare match
        # (the hardware boards' pin rises at it): one rising edge each.
        if ch == "ev" and (v == 2 or (v == 1 and level["ev"] != 1)):
            cur["ev"] += 1
        if ch == "tk" and v != level["tk"]:
            cur["tk_edges"] += 1
            cur["tk_rise"] += 1 if v else 0
    level[ch] = v
mapped = {"wake_latency", "event_to_task", "tick_period"}
want = []
for line in open(sys.argv[2], errors="replace"):
    m = re.match(r"RESULT,([a-z_]+),n=(\d+),", line)
    if m and m.group(1) in mapped:
        want.append((m.group(1), int(m.group(2))))
names = [w[0] for w in want]
if names != ["wake_latency"] + ["event_to_task"] * 3 + ["tick_period"]:
    sys.exit(f"FAIL: the capture's edge-mapped series are {names}")
if len(pulses) != len(want):
    sys.exit(f"FAIL: {len(pulses)} MK pulses for {len(want)} edge-mapped series")
for (name, n), p in zip(want, pulses):
    if name == "tick_period":
        ok = p["ev"] == 0 and p["tk_edges"] == n + 1
    else:
        ok = p["ev"] == n and p["tk_rise"] == n
    if not ok:
        sys.exit(f"FAIL: {name} keeps {n} samples, its MK pulse holds {p}")
    print(f"{name}: n={n}, MK pulse {p}")
EOF
echo "edges: one MK pulse per edge-mapped series, one EV and TK edge per kept sample"
