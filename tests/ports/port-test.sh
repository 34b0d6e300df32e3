#!/usr/bin/env bash
# End-to-end test of one kernel port (firmware/ports/<port>/) with the real
# kernel source, the real arm-none-eabi-gcc, the real QEMU and the real
# `rtosbench verify`.
#
#   port-test.sh qemu PORT ENV_VAR RTOSBENCH_BIN REPO_ROOT WORK_DIR GENERATOR BARE_BUILD
#   port-test.sh f407 PORT ENV_VAR RTOSBENCH_BIN REPO_ROOT WORK_DIR GENERATOR
#
# The kernel's facts (its pinned version, extra sources, the tests its port
# reports NA, its known defect, its CONFIG exceptions) are read from its
# kernel.yaml through `rtosbench kernels show` and `kernels expect`: they
# live there only.
#
# The kernel source is the directory named by the environment variable
# ENV_VAR (e.g. RTOSBENCH_KERNEL_FREERTOS), read now, at test time. When it is
# unset or empty the test prints why and exits 77, which tests.cmake declares
# as CTest's SKIP_RETURN_CODE: reported as skipped, never as passed. A
# variable that names no directory is an error (exit 1), not a skip.
#
# qemu: builds for qemu-netduinoplus2 (RB_KERNEL_VERSION=VERSION, so the
#   port's recipe checks the checkout is that version), runs every harness test
#   under QEMU (scripts/run-qemu.sh), and requires `rtosbench verify` to
#   accept the log (exit 0, every PHASE OK, conditions pinned with --expect,
#   checks=off and lookup=clz among them, or what the kernel's entry pins),
#   every test run but the ones the port's kernel.yaml `na:` lists
#   (those NA), and a second run to give identical statistics
#   (QEMU -icount is deterministic). A kernel whose kernel.yaml names a
#   known defect (`defects: {<check>: ...}`) instead requires verify to
#   report exactly one problem: that CHECK failing (documented in
#   docs/kernels.md), everything else valid. Then computes the footprint
#   against BARE_BUILD (`rtosbench footprint`) and checks its two ways of
#   counting agree.
# f407: builds the stm32f407-disco image and checks the outputs.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

mode=$1 port=$2 env_var=$3 bin=$4 root=$5 work=$6 gen=$7
bare=${8:-}
case $mode in qemu | f407) ;; *) fail "unknown mode '$mode' (qemu or f407)" ;; esac
[[ -x $bin ]] || fail "rtosbench binary not found: $bin"
version=$(kernel_fact "$port" .version)
[[ -n $version && $version != n/a ]] || fail "firmware/ports/$port/kernel.yaml pins no version"

port_source "$port" "$env_var"

# The pin's extra sources (uC/OS-III's uC-CPU and uC-LIB, Zephyr's modules).
extra=()
port_extra_sources "$port"

if [[ $mode == qemu ]]; then
  board=qemu-netduinoplus2
else
  board=stm32f407-disco
fi
# The known defects of the kernel on the board's core.
defect=$("$bin" kernels show "$port" --board "$board" | jq -r '.defects | keys | join(" ")')
# Fewer samples than a benchmark run: this checks the port, not the figures.
samples=2000
warmup=200
nonce=5eed0105
build=$work/$port-$board
rm -rf "$build"
mkdir -p "$work"
start=$SECONDS
port_build "$port" "$build" "$gen" "$port for $board" -DRB_BOARD="$board" \
  -DRB_KERNEL_SOURCE="$src" -DRB_KERNEL_VERSION="$version" -DRB_SAMPLES=$samples \
  -DRB_WARMUP=$warmup -DRB_NONCE=$nonce "${extra[@]}"
for f in rtosbench-fw.elf rtosbench-fw.map rtosbench-fw.bin size.txt size.json; do
  [[ -s $build/$f ]] || fail "$build/$f is missing or empty"
done
echo "$port for $board built in $((SECONDS - start)) s: $(cat "$build/size.json")"
[[ $mode == f407 ]] && exit 0

# ---- qemu: run, verify ------------------------------------------------------
log=$work/$port-qemu.log
start=$SECONDS
rc=0
"$root/scripts/run-qemu.sh" "$build/rtosbench-fw.elf" "$log" 300 || rc=$?
[[ $rc -eq 0 ]] || { tail -5 "$log" >&2; fail "run-qemu.sh exited $rc"; }
echo "ran under QEMU in $((SECONDS - start)) s: $(wc -l <"$log") lines"

# Equal kernel settings (docs/kernels.md, "API checks"): API checks off, the
# ready-task lookup by CLZ, the board's interrupt levels; the kernel's
# kernel.yaml names its exceptions (`rtosbench kernels expect`).
expect=()
board_pins "$port" "$board"
for pin in "checks=$(kernel_fact "$port" '.expect.checks // "off"')" "kernel=$port" "port=$port" \
  "board=$board" "kernel_version=$version" \
  "harness=$("$root/scripts/fw-harness-hash.sh" "$root/firmware/harness")" "nonce=$nonce" \
  tick=1000 preempt=1 slicing=1 fpu=0 stack_words=512 debugger=0 samples=$samples warmup=$warmup; do
  expect+=(--expect "$pin")
done
rc=0
"$bin" verify "$log" "${expect[@]}" --json "$work/$port-qemu.json" >"$work/$port-qemu.verify.txt" 2>&1 || rc=$?
verdicts=$(tr -d ' \n' <"$work/$port-qemu.json" | sed -n 's/.*"verdicts":\[\([^]]*\)\].*/\1/p')
if [[ -z $defect ]]; then
  if [[ $rc -ne 0 ]]; then
    cat "$work/$port-qemu.verify.txt" >&2
    fail "rtosbench verify exited $rc (0 required)"
  fi
else
  # Exactly one problem, the documented one (notes, e.g. the NA of a test the
  # port has no capability for, are not problems).
  n=$(grep -o '"severity":"[a-z]*"' <<<"$verdicts" | grep -vc '"note"' || true)
  if [[ $rc -ne 1 || $n -ne 1 ]] || ! grep -q "\"check\":\"check_failed\"" <<<"$verdicts" ||
    ! grep -q "CHECK${defect}failed" <<<"$verdicts"; then
    cat "$work/$port-qemu.verify.txt" >&2
    fail "expected verify to exit 1 with the single known defect 'CHECK $defect failed'" \
      "(docs/kernels.md); got exit $rc with $n problem(s)"
  fi
  echo "known kernel defect reproduced: CHECK $defect failed (docs/kernels.md); every other check passed"
fi
# `verify --image` (docs/verify.md, "Which image"): the log came from this
# image (the flashed .bin), not from the bare image (same nonce, another
# port), and a capture cut before CONFIG cannot tell.
rc=0
"$bin" verify "$log" --image "$build/rtosbench-fw.bin" "${expect[@]}" >"$work/$port-qemu.image.txt" 2>&1 || rc=$?
[[ $rc -eq $( [[ -z $defect ]] && echo 0 || echo 1) ]] ||
  { cat "$work/$port-qemu.image.txt" >&2; fail "verify --image of its own image exited $rc"; }
grep -q "from this image" "$work/$port-qemu.image.txt" || fail "verify --image did not say 'from this image'"
if [[ -n $bare && -f $bare/rtosbench-fw.bin ]]; then
  rc=0
  "$bin" verify "$log" --image "$bare/rtosbench-fw.bin" >"$work/$port-qemu.image.txt" 2>&1 || rc=$?
  [[ $rc -eq 5 ]] || { cat "$work/$port-qemu.image.txt" >&2; fail "verify --image of the bare image exited $rc (5 wanted)"; }
fi
rc=0
head -2 "$log" | "$bin" verify - --image "$build/rtosbench-fw.bin" >/dev/null 2>&1 || rc=$?
[[ $rc -eq 6 ]] || fail "verify --image of a capture cut before CONFIG exited $rc (6 wanted)"
echo "verify --image: from this image; not from the bare image (5); a cut capture cannot tell (6)"

# QEMU with -icount is deterministic: a second run must give the same
# statistics (a port reading uninitialised state, or racing the host, would not).
# Except the RESULTs of the series the board declares the emulator can move
# (tests/board-unstable.sh: sleep_wake's WFI phase, where QEMU 7.2 may warp
# virtual time from a timer callback on its I/O thread, QEMU issue 2703,
# fixed upstream in 2025; docs/firmware.md, "qemu-netduinoplus2"); the PHASE
# counters and everything else must still be identical.
rc=0
"$root/scripts/run-qemu.sh" "$build/rtosbench-fw.elf" "$log.2" 300 || rc=$?
[[ $rc -eq 0 ]] || { tail -5 "$log.2" >&2; fail "second run: run-qemu.sh exited $rc"; }
unstable=$("$root/tests/board-unstable.sh" "$root" "$board" | paste -sd'|')
moving="^RESULT,(${unstable:-\$^}),"
stats() { grep -E '^(RESULT|PHASE|CHECK|NA),' "$1" | grep -vE "$moving"; }
if ! cmp -s <(stats "$log") <(stats "$log.2"); then
  diff <(stats "$log") <(stats "$log.2") | head >&2
  fail "the second QEMU run's statistics differ from the first"
fi
if cmp -s <(grep -E "$moving" "$log") <(grep -E "$moving" "$log.2"); then
  echo "second run: statistics identical"
else
  echo "second run: statistics identical but for the series the board declares unstable ($unstable)"
fi
# Every harness test runs but those the port reports NA by design (its
# kernel.yaml `na:`, with their reasons): exactly those.
end=$(grep '^END,' "$log" | cut -d'|' -f1)
total=$(grep -c '^  X(' "$root/firmware/harness/rb_tests.h")
na_want=$(kernel_fact "$port" '.na | keys[]' | sort)
# stop_wake: the QEMU board has no STOP mode, NA on every port (docs/firmware.md).
na_got=$( (grep '^NA,' "$log" || true) | (grep -v '^NA,stop_wake,' || true) | cut -d'|' -f1 | cut -d, -f2 | sort)
[[ $na_got == "$na_want" ]] ||
  fail "NA records: got [$(echo $na_got)], expected [$(echo $na_want)] (firmware/ports/$port/kernel.yaml na:)"
n_na=$(grep -c . <<<"$na_want" || true)
n_run=$((total - n_na))
[[ $end == *",tests_run=$n_run,"* && $end == *",tests_na=$n_na"* ]] ||
  fail "expected tests_run=$n_run, tests_na=$n_na (rb_tests.h: $total tests): $end"
grep '^PHASE,' "$log" | cut -d'|' -f1
grep -E '^(RESULT|CHECK),' "$log" | cut -d'|' -f1 |
  sed -E 's/^(RESULT,[^,]+,n=[0-9]+),.*median_ticks=([0-9]+),.*p99_ticks=([0-9]+),.*/\1 median=\2 p99=\3/'

# ---- footprint ---------------------------------------------------------------
[[ -n $bare && -f $bare/size.json ]] || fail "no bare build at '$bare' (the ports_bare_qemu fixture failed?)"
fp=$("$bin" footprint "$build" "$bare" --json)
# A port that builds its own image (RB_PORT_BUILDS_IMAGE: Zephyr) is laid out
# by its kernel's linker script, whose output-section alignment map-fill.py
# does not see as fill: 128 bytes, as ports_run_footprint allows every image.
tol=64
grep -q '^set(RB_PORT_BUILDS_IMAGE ON)' "$root/firmware/ports/$port/port.cmake" && tol=128
echo "footprint: $fp"
num() { sed -n "s/.*\"$1\":{[^}]*\"$2\":\([0-9-]*\).*/\1/p" <<<"$fp"; }
for m in flash ram; do
  k=$(num kernel $m) g=$(num port_glue $m) l=$(num libs $m) b=$(num bare_port $m) d=$(num delta $m)
  s=$(num kernel_support $m) u=$(num startup $m)
  [[ -n $k && -n $g && -n $l && -n $b && -n $d && -n $s && -n $u ]] ||
    fail "footprint: cannot read $m figures"
  # kernel_support: a kernel's device/init objects (Zephyr); startup: the
  # board start-up code the image lacks when the kernel owns start-up.
  diff=$((k + s + g + l + u - b - d))
  # The images differ only in kernel + glue + the C library code they pull in
  # vs the bare scheduler, and in the fill no object owns (map-fill.py:
  # alignment; in flash 0 to 63 bytes before newlib-nano's 64-byte aligned
  # strlen alone, in RAM 0 to 511 before LiteOS-M's vector table), which is
  # added back here; what is left is the harness' CONFIG strings that name
  # the kernel (version, 40-digit commit; bare: n/a).
  region=()
  [[ $m == ram ]] && region=(--ram)
  fill_img=$("$root/tests/ports/map-fill.py" "${region[@]}" "$build/rtosbench-fw.map") || fail "map-fill.py on $build"
  fill_bare=$("$root/tests/ports/map-fill.py" "${region[@]}" "$bare/rtosbench-fw.map") || fail "map-fill.py on $bare"
  diff=$((diff + fill_img - fill_bare))
  # The harness code a port's NA tests leave unreferenced is not linked
  # (map-fill.py --harness): the difference is added back too.
  h_img=$("$root/tests/ports/map-fill.py" "${region[@]}" --harness "$build/rtosbench-fw.map") || fail "map-fill.py --harness on $build"
  h_bare=$("$root/tests/ports/map-fill.py" "${region[@]}" --harness "$bare/rtosbench-fw.map") || fail "map-fill.py --harness on $bare"
  diff=$((diff + h_img - h_bare))
  # The harness' CONFIG strings that name the kernel (version, commit, CPU
  # port) are in the image and no part owns them; in the bare image each is
  # "n/a". Their extra length is added back (flash only: they are constants).
  if [[ $m == flash ]]; then
    for key in kernel_version kernel_commit port_variant; do
      v=$(grep -o ",$key=[^,|]*" "$log" | head -1 | cut -d= -f2-)
      diff=$((diff + ${#v} - 3))
    done
  fi
  ((diff >= -tol && diff <= tol)) ||
    fail "footprint: kernel+support+glue+libs+startup-bare_port ($((k + s + g + l + u - b))) and image delta ($d) disagree on $m" \
      "by $diff bytes after fill, harness and CONFIG strings are added back (at most $tol)"
  echo "footprint $m: the split and the image delta agree to $diff bytes (at most $tol)"
done
(($(num kernel flash) > 1000)) || fail "footprint: implausibly small kernel ($(num kernel flash) bytes of flash)"
