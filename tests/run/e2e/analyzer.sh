#!/usr/bin/env bash
# The bench's logic analyzer through the real run on the emulated bench
# (docs/lab.md, "Wiring the analyzer"): sigrok-cli's own `demo` driver (a
# real sigrok driver that makes signals) captures each attempt to
# attempt-N/edges.sr (srzip, on disk before the analysis, stopped by SIGINT
# at the end) and edges.json follows; the fx2lafw driver with no device
# here is ANALYZER_MISSING with the DWT result kept; a fake sigrok-cli on
# PATH that reports an overflow is ANALYZER_OVERFLOW; doctor reports the
# analyzer. Skipped (77) without sigrok-cli.
source "$(dirname "$0")/lib.sh" "$@"
if ! command -v sigrok-cli >/dev/null; then
  echo "SKIP: sigrok-cli is not installed (Debian: sigrok-cli)"
  exit 77
fi

j=bare-O2-tick1000-fpu0
# bench_with ANALYZER_YAML: a one-board emulated bench with that analyzer.
bench_with() {
  cat >"$WORK/bench.yaml" <<YAML
bench: analyzer-e2e
analyzer: $1
boards:
  - id: qemu-1
    board: qemu-netduinoplus2
    flasher: qemu
YAML
  sed -e "s|^bench: .*|bench: $WORK/bench.yaml|" -e "s|^firmware: .*|firmware: $DATA/run/testfw|" \
    "$DATA/run/normal.yaml" >"$WORK/m.yaml"
}

# 1. The demo driver: a real capture, stopped at the end.
bench_with "{driver: demo, samplerate: 100000, channels: {MK: D0, EV: D1, TK: D2}}"
rb_run --matrix "$WORK/m.yaml" --out "$WORK/runs-demo" --no-history
expect_eq "demo: exit code" 0 "$RC"
d=$(run_dir "$WORK/runs-demo")
r=$d/jobs/$j/result.json
expect_eq "demo: status" OK "$(job_status "$d" $j)"
expect_eq "demo: analyzer outcome" ok "$(jq -r '.attempts[0].analyzer.outcome' "$r")"
expect_eq "demo: analyzer file" attempt-1/edges.sr "$(jq -r '.attempts[0].analyzer.file' "$r")"
sr=$d/jobs/$j/attempt-1/edges.sr
expect_file "$sr"
expect_file "$d/jobs/$j/attempt-1/capture.raw"
show=$(sigrok-cli -i "$sr" --show 2>&1)
expect_contains "demo: srzip read back by sigrok-cli" "Samplerate: 100000" "$show"
expect_contains "demo: roles named in the capture" "- MK: logic" "$show"
expect_contains "demo: roles named in the capture" "- TK: logic" "$show"
# Stopped by SIGINT once the serial capture ended: far shorter than its --time
# limit (capture + flash timeouts + 60 s = 100 s), and at least a few samples.
# One byte per sample (three channels): the logic-1-* members' sizes.
samples=$(/usr/bin/python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(sum(i.file_size for i in z.infolist() if i.filename.startswith("logic-1-")))' "$sr")
expect_eq "demo: captured some samples" true "$( ((samples > 1000)) && echo true || echo false)"
expect_eq "demo: stopped at the end, not by its limit" true \
  "$( ((samples < 100000 * 60)) && echo true || echo false)"
expect_file "$d/jobs/$j/edges.json"
expect_file "$d/jobs/$j/attempt-1/edges.json"
# The test firmware is no edges=on build: the analysis says so, the job stays OK.
expect_contains "demo: edges.json names its capture" attempt-1/edges.sr \
  "$(jq -r .capture "$d/jobs/$j/edges.json")"
expect_eq "demo: the analysis ran (a verdict or why not)" true \
  "$(jq 'has("status") or has("error")' "$d/jobs/$j/edges.json")"
expect_contains "demo: job.log" "edges:" "$(cat "$d/jobs/$j/job.log")"

# 2. fx2lafw without a device: ANALYZER_MISSING, the DWT result kept.
bench_with "{driver: fx2lafw, samplerate: 24000000}"
rb_run --matrix "$WORK/m.yaml" --out "$WORK/runs-fx2" --no-history
expect_eq "fx2lafw: exit code (infrastructure)" 2 "$RC"
d=$(run_dir "$WORK/runs-fx2")
r=$d/jobs/$j/result.json
expect_eq "fx2lafw: status" ANALYZER_MISSING "$(job_status "$d" $j)"
expect_contains "fx2lafw: reason" "No devices found" "$(job_reason "$d" $j)"
expect_contains "fx2lafw: reason keeps the DWT verdict" "DWT capture verified OK" "$(job_reason "$d" $j)"
expect_eq "fx2lafw: analyzer outcome" missing "$(jq -r '.attempts[0].analyzer.outcome' "$r")"
expect_eq "fx2lafw: verify outcome kept" valid "$(jq -r '.attempts[0].verify.outcome' "$r")"
expect_eq "fx2lafw: series kept" 7 "$(jq '.series | length' "$r")"
expect_eq "fx2lafw: headline kept" 321 "$(jq '.headline[] | select(.name=="wake_latency") | .median_ticks' "$r")"
expect_file "$d/jobs/$j/attempt-1/verify.json"
expect_eq "fx2lafw: one attempt (not retried)" 1 "$(jq '.attempts | length' "$r")"
expect_eq "fx2lafw: no analysis without a capture" false "$([[ -e $d/jobs/$j/edges.json ]] && echo true || echo false)"
expect_contains "fx2lafw: closing table" ANALYZER_MISSING "$OUT"

# 3. A fake sigrok-cli (on PATH, here only) that captures until SIGINT and
# then reports an overflow, as libsigrok does when the USB link lags.
mkdir -p "$WORK/fakebin"
cat >"$WORK/fakebin/sigrok-cli" <<'SH'
#!/bin/bash
out=
while (($#)); do [[ $1 == -o ]] && out=$2; shift; done
[[ -n $out ]] || exit 2
printf 'PK' >"$out"
trap 'echo "sr: fx2lafw: Sample buffer overflow." >&2; exit 1' INT
while :; do sleep 0.05; done
SH
chmod +x "$WORK/fakebin/sigrok-cli"
bench_with "{driver: fx2lafw}"
PATH=$WORK/fakebin:$PATH rb_run --matrix "$WORK/m.yaml" --out "$WORK/runs-fake" --no-history
expect_eq "overflow: exit code (infrastructure)" 2 "$RC"
d=$(run_dir "$WORK/runs-fake")
r=$d/jobs/$j/result.json
expect_eq "overflow: status" ANALYZER_OVERFLOW "$(job_status "$d" $j)"
expect_contains "overflow: reason" "overflow" "$(job_reason "$d" $j)"
expect_eq "overflow: series kept" 7 "$(jq '.series | length' "$r")"
expect_contains "overflow: analyzer.log" "Sample buffer overflow" "$(cat "$d/jobs/$j/attempt-1/analyzer.log")"

# 4. doctor: the demo device found, fx2lafw's firmware and its missing device.
bench_with "{driver: demo}"
set +e
doc=$("$RB" doctor --bench "$WORK/bench.yaml" 2>&1)
set -e
expect_contains "doctor: version" "sigrok-cli: version" "$doc"
expect_contains "doctor: demo found" "analyzer demo: found demo" "$doc"
bench_with "{driver: fx2lafw, conn: '1.99'}"
set +e
doc=$("$RB" doctor --bench "$WORK/bench.yaml" 2>&1)
rc=$?
set -e
expect_eq "doctor: fx2lafw without a device is an error" 1 "$rc"
expect_contains "doctor: no device" "sigrok-cli -d fx2lafw:conn=1.99 --scan finds no device" "$doc"
if ls /usr/share/sigrok-firmware/fx2lafw-*.fw >/dev/null 2>&1; then
  expect_contains "doctor: fx2lafw firmware" "fx2lafw firmware: " "$doc"
else
  expect_contains "doctor: fx2lafw firmware missing" "apt-get install sigrok-firmware-fx2lafw" "$doc"
fi
finish
