#!/usr/bin/env bash
# The real-probe backends invoked for real with no probe attached: OpenOCD's
# own message becomes the FLASH_ERROR (after the configured retry, both
# attempts kept; with several loads, in the failing load's directory); on a
# machine without pyocd (or openocd) run refuses to start, naming what is
# missing and how to install it.
source "$(dirname "$0")/lib.sh" "$@"

rb_run --matrix "$DATA/run/probes.yaml" --bench "$DATA/run/benches/openocd.yaml" --out "$WORK/runs" --loads 1
expect_eq "openocd exit code" 2 "$RC"
d=$(run_dir "$WORK/runs")
j=bare-O2-tick1000-fpu0
expect_eq "openocd status" FLASH_ERROR "$(job_status "$d" $j)"
expect_contains "openocd message" "Error: open failed" "$(job_reason "$d" $j)"
expect_eq "flash retried, every attempt kept" 2 "$(jq '.attempts | length' "$d/jobs/$j/result.json")"
expect_file "$d/jobs/$j/attempt-1/flash.log"
expect_file "$d/jobs/$j/attempt-2/flash.log"
expect_contains "openocd command line logged" 'adapter serial 0669FF000000000000000000' "$(cat "$d/jobs/$j/attempt-1/flash.log")"

# A hardware bench and a matrix without `loads:`: 5 loads per job (the
# default on hardware). The first load's FLASH_ERROR ends the job; its
# attempts are in load-1/.
rb_run --matrix "$DATA/run/probes.yaml" --bench "$DATA/run/benches/openocd.yaml" --out "$WORK/runs-r"
expect_eq "repeated openocd exit code" 2 "$RC"
d=$(run_dir "$WORK/runs-r")
expect_eq "repeated openocd status" FLASH_ERROR "$(job_status "$d" $j)"
expect_contains "the reason names the load of five" "load 1 of 5: openocd program failed" "$(job_reason "$d" $j)"
expect_eq "five loads asked for" 5 "$(jq .job.repeats "$d/jobs/$j/result.json")"
expect_eq "attempts of load 1" "1:1 1:2" "$(jq -r '[.attempts[] | "\(.load):\(.number)"] | join(" ")' "$d/jobs/$j/result.json")"
expect_file "$d/jobs/$j/load-1/attempt-2/flash.log"
expect_eq "not judged" not_judged "$(jq -r .reproducibility.verdict "$d/jobs/$j/result.json")"

# Issue 30: a run directory whose path holds a space, `+`, `[`, `$` and `@`.
# OpenOCD runs in the job's firmware directory and is given the image's fixed
# name. The real openocd parses the real command line: a shim first in PATH
# execs it with, just before `-c program ...`, the commands that need a
# probe (init, reset, flash, verify_image) redefined as procs that read the
# file they are given, so OpenOCD's own `program` (0.12's
# src/flash/startup.tcl: the name in braces, then eval) runs on the name it
# gets. With the path on the command line, the `[1]` in it ran as a command.
odd='My Bench+[1]$HOME@lab'
shim=$WORK/shim
mkdir -p "$shim" "$WORK/$odd"
real_openocd=$(command -v openocd)
cat >"$shim/openocd" <<EOF
#!/usr/bin/env bash
args=("\$@")
out=()
for ((i = 0; i < \${#args[@]}; i++)); do
  if [[ "\${args[i]}" == -c && "\${args[i + 1]:-}" == "program "* ]]; then
    out+=(-c 'proc init {} {}' -c 'proc reset {args} {echo "(reset \$args)"}'
          -c 'rename flash _flash; proc flash {args} {echo "(flash \$args: [file size [lindex \$args end]] bytes)"}'
          -c 'proc verify_image {args} {echo "(verify_image \$args: [file size [lindex \$args 0]] bytes)"}')
  fi
  out+=("\${args[i]}")
done
exec "$real_openocd" "\${out[@]}"
EOF
chmod +x "$shim/openocd"
# The console: a pty nobody else holds (its master kept by a helper), so
# the job gets past the port to the release.
/usr/bin/python3 -c 'import os, pty, sys, time
m, s = pty.openpty(); print(os.ttyname(s), flush=True); os.close(s); time.sleep(300)' >"$WORK/pty" &
pty_pid=$!
for _ in $(seq 50); do [[ -s "$WORK/pty" ]] && break; sleep 0.1; done
sed "s|port: /dev/null|port: $(cat "$WORK/pty")|" "$DATA/run/benches/openocd.yaml" >"$WORK/openocd-pty.yaml"
PATH=$shim:$PATH rb_run --matrix "$DATA/run/probes.yaml" --bench "$WORK/openocd-pty.yaml" --out "$WORK/$odd/runs" --loads 1
kill "$pty_pid"
d=$(run_dir "$WORK/$odd/runs")
expect_contains "the run directory holds the odd path" "$odd" "$d"
log=$(cat "$d/jobs/$j/attempt-1/flash.log")
size=$(stat -c %s "$d/jobs/$j/firmware/rtosbench-fw.elf")
expect_contains "openocd ran in the image's directory" "\$ cd \"$d/jobs/$j/firmware\" && openocd" "$log"
expect_contains "program got the fixed name and read the image" "(flash write_image erase rtosbench-fw.elf: $size bytes)" "$log"
expect_contains "verify_image read it" "(verify_image rtosbench-fw.elf: $size bytes)" "$log"
expect_contains "program verified" "** Verified OK **" "$log"
expect_eq "no Tcl error from the path" "" "$(grep -i 'invalid command name' <<<"$log" || true)"
# No OpenOCD command line opens a port (gdb at init, tcl and telnet after the
# configuration: openocd.c), and the release clears the reset flags before
# its own reset.
ports='openocd -c "gdb_port disabled" -c "tcl_port disabled" -c "telnet_port disabled" -f'
expect_eq "every openocd command disables the three ports" \
  "$(grep -c ' && openocd \| openocd ' <<<"$log")" "$(grep -cF "$ports" <<<"$log")"
expect_contains "the release" '-c init -c halt -c "mww 0x40023874 0x01000000" -c "reset halt" -c "mww 0xE0042004 0"' "$log"
expect_eq "no probe: the release (then the retry) failed" FLASH_ERROR "$(job_status "$d" $j)"
expect_contains "the first attempt got past program to the release" "openocd release failed" "$(cat "$d/jobs/$j/result.json")"

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
