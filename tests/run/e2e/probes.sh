#!/usr/bin/env bash
# The real-probe backends invoked for real with no probe attached: OpenOCD's
# own message becomes the FLASH_ERROR (after the configured retry, both
# attempts kept; with --repeat, in the failing load's directory); on a
# machine without pyocd (or openocd) run refuses to start, naming what is
# missing and how to install it.
source "$(dirname "$0")/lib.sh" "$@"

rb_run --matrix "$DATA/run/probes.yaml" --bench "$DATA/run/benches/openocd.yaml" --out "$WORK/runs"
expect_eq "openocd exit code" 2 "$RC"
d=$(run_dir "$WORK/runs")
j=bare-O2-tick1000-fpu0
expect_eq "openocd status" FLASH_ERROR "$(job_status "$d" $j)"
expect_contains "openocd message" "Error: open failed" "$(job_reason "$d" $j)"
expect_eq "flash retried, every attempt kept" 2 "$(jq '.attempts | length' "$d/jobs/$j/result.json")"
expect_file "$d/jobs/$j/attempt-1/flash.log"
expect_file "$d/jobs/$j/attempt-2/flash.log"
expect_contains "openocd command line logged" 'adapter serial 0669FF000000000000000000' "$(cat "$d/jobs/$j/attempt-1/flash.log")"

# Repeated: the first load's FLASH_ERROR ends the job; its attempts are in load-1/.
rb_run --matrix "$DATA/run/probes.yaml" --bench "$DATA/run/benches/openocd.yaml" --out "$WORK/runs-r" --repeat 2
expect_eq "repeated openocd exit code" 2 "$RC"
d=$(run_dir "$WORK/runs-r")
expect_eq "repeated openocd status" FLASH_ERROR "$(job_status "$d" $j)"
expect_contains "the reason names the load" "load 1 of 2: openocd program failed" "$(job_reason "$d" $j)"
expect_eq "attempts of load 1" "1:1 1:2" "$(jq -r '[.attempts[] | "\(.load):\(.number)"] | join(" ")' "$d/jobs/$j/result.json")"
expect_file "$d/jobs/$j/load-1/attempt-2/flash.log"
expect_eq "not judged" not_judged "$(jq -r .reproducibility.verdict "$d/jobs/$j/result.json")"

# pyocd is not installed here (and hidden from PATH if it is).
bindir=$WORK/bin
mkdir -p "$bindir"
for t in cmake ninja git sh $(cd /usr/bin && ls arm-none-eabi-*); do
  ln -s "$(command -v $t)" "$bindir/$t"
done
# run refuses to start (exit 69, nothing run), naming what is missing and the fix.
PATH=$bindir rb_run --matrix "$DATA/run/probes.yaml" --bench "$DATA/run/benches/pyocd.yaml" --out "$WORK/runs2"
expect_eq "pyocd: refused to start" 69 "$RC"
expect_contains "pyocd message says what is missing" "refusing to start: pyocd: not installed: no \`pyocd\` command in PATH" "$ERR"
expect_contains "pyocd message says how to install" "fix: install a current pyOCD with \`pipx install pyocd\`" "$ERR"
expect_eq "no job was run" "" "$(ls "$WORK/runs2" 2>/dev/null)"
# The same for openocd hidden from PATH.
PATH=$bindir rb_run --matrix "$DATA/run/probes.yaml" --bench "$DATA/run/benches/openocd.yaml" --out "$WORK/runs3"
expect_eq "openocd missing: refused to start" 69 "$RC"
expect_contains "openocd fix" "fix: install OpenOCD 0.12 or later" "$ERR"
finish
