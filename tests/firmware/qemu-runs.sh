#!/usr/bin/env bash
# Test: run a firmware image under QEMU RUNS times, verify every log with the
# real `rtosbench verify` (exit 0 required, CONFIG pinned with --expect), and
# require the runs' statistics (RESULT, PHASE, CHECK and NA records) to be
# byte-identical (but for the RESULTs of the series the board declares the
# emulator can move, tests/board-unstable.sh: sleep_wake's WFI phase, where
# QEMU 7.2 may warp virtual time from a timer callback on its I/O thread, QEMU
# issue 2703; docs/firmware.md). Also checks the harness hash against the sources and that
# the log has the expected numbers of RESULT and NA records.
#   qemu-runs.sh RTOSBENCH_BIN BUILD_DIR WORK_DIR RUNS REPO_ROOT RESULTS:NAS KEY=VALUE...
# RESULTS:NAS: e.g. 15:0. The KEY=VALUE pins are passed to verify as --expect.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bin=$1 build=$2 work=$3 runs=$4 root=$5 counts=$6
shift 6
[[ -x $bin ]] || fail "rtosbench binary not found: $bin"
elf=$build/rtosbench-fw.elf
[[ -f $elf ]] || fail "no firmware image: $elf (the build fixture failed?)"

expect=(--expect "harness=$("$root/scripts/fw-harness-hash.sh" "$root/firmware/harness")")
for pin in "$@"; do
  expect+=(--expect "$pin")
done

unstable=$("$root/tests/board-unstable.sh" "$root" qemu-netduinoplus2 | paste -sd'|')
moving="^RESULT,(${unstable:-\$^}),"

rm -rf "$work"
mkdir -p "$work"
for i in $(seq 1 "$runs"); do
  log=$work/run$i.log
  start=$SECONDS
  rc=0
  "$root/scripts/run-qemu.sh" "$elf" "$log" 120 || rc=$?
  [[ $rc -eq 0 ]] || { tail -5 "$log" >&2; fail "run $i: run-qemu.sh exited $rc"; }
  echo "run $i: $(wc -l <"$log") lines in $((SECONDS - start)) s"
  rc=0
  "$bin" verify "$log" "${expect[@]}" --json "$work/run$i.json" >"$work/run$i.verify.txt" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    cat "$work/run$i.verify.txt" >&2
    fail "run $i: rtosbench verify exited $rc (0 required)"
  fi
  grep -E '^(RESULT|PHASE|CHECK|NA),' "$log" | grep -vE "$moving" >"$work/run$i.stats"
  got="$(grep -c '^RESULT,' "$log" || true):$(grep -c '^NA,' "$log" || true)"
  [[ $got == "$counts" ]] || fail "run $i: RESULT:NA record counts are $got, expected $counts"
done

for i in $(seq 2 "$runs"); do
  if ! cmp -s "$work/run1.stats" "$work/run$i.stats"; then
    diff "$work/run1.stats" "$work/run$i.stats" | head -20 >&2
    fail "the statistics of run $i differ from run 1"
  fi
  if cmp -s "$work/run1.log" "$work/run$i.log"; then
    echo "run $i: whole log byte-identical to run 1"
  else
    echo "run $i: statistics identical to run 1 (raw log differs elsewhere)"
  fi
done
echo "statistics of $runs runs byte-identical ($(wc -l <"$work/run1.stats") records)"
grep -E '^(RESULT|CHECK|NA),' "$work/run1.log" | cut -d'|' -f1 |
  sed -E 's/^(RESULT,[^,]+,n=[0-9]+),.*median_ticks=([0-9]+),.*p99_ticks=([0-9]+),.*/\1 median=\2 p99=\3/'
