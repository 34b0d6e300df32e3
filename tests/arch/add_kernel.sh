#!/usr/bin/env bash
# ARCHITECTURE.md, "add a kernel": a port directory made from
# firmware/ports/template/ as docs/porting.md says (copied, `template`
# renamed to the port's name, `discover: false` deleted) is a new row of the
# shipped emulated matrix (configs/qemu.yaml says `kernels: all`), with no
# other file changed. Its job builds, runs on QEMU and reports what the
# template honestly reports (porting.md 1, 3): the ruler measured, every other
# test NA because the port provides no tasks, the CONFIG its kernel.yaml pins.
source "$(dirname "$0")/lib.sh" "$@"
K=scratchos
scratch_copy
M=$TREE/configs/qemu.yaml

rb_run --matrix "$M" --list
expect_eq "before: the shipped matrix lists" 0 "$RC"
expect_eq "before: no $K job" "" "$(grep "^$K-" <<<"$OUT" || true)"

# The port, as docs/porting.md 1 makes it.
P=$TREE/firmware/ports/$K
cp -r "$TREE/firmware/ports/template" "$P"
mv "$P/rbp_template.c" "$P/rbp_$K.c"
sed -i "s/template/$K/g" "$P/port.cmake" "$P/rbp_$K.c" "$P/kernel.yaml"
sed -i '/^discover: false$/d' "$P/kernel.yaml"
expect_changes "only the port directory is new" \
  "firmware/ports/$K/kernel.yaml" "firmware/ports/$K/port.cmake" "firmware/ports/$K/rbp_$K.c"

rb_run --matrix "$M" --list
expect_eq "after: the shipped matrix lists" 0 "$RC"
expect_eq "after: its job" "$K-O2-tick1000-fpu0" "$(grep "^$K-" <<<"$OUT" || true)"
RTOSBENCH_FIRMWARE=$TREE/firmware "$RB" kernels list >"$WORK/kernels.txt"
expect_eq "rtosbench kernels list names it" "$K n/a" "$(awk -v k=$K '$1 == k {print $1, $2}' "$WORK/kernels.txt")"

rb_run --matrix "$M" --only "$K-*" --out "$WORK/runs" --no-history
expect_eq "exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
j=$K-O2-tick1000-fpu0
r=$d/jobs/$j/result.json
expect_eq "one job ran" "$j" "$(ls "$d/jobs" | paste -sd' ')"
expect_eq "status" OK "$(job_status "$d" $j)"
expect_eq "built from the copy" "$K" "$(jq -r .conditions.port "$r")"
expect_eq "CONFIG kernel= (rbp_port.kernel)" "$K" "$(jq -r .conditions.kernel "$r")"
expect_eq "no tick (kernel.yaml expect)" 0 "$(jq -r .conditions.tick "$r")"
expect_eq "measured: the ruler's series" "$(series_of ruler)" \
  "$(jq -r '[.series[].name] | join(" ")' "$r")"
expect_eq "NA: every other harness test" "$(harness_tests | grep -vx ruler | LC_ALL=C sort | paste -sd' ')" \
  "$(jq -r '[.not_applicable[].name] | sort | join(" ")' "$r")"
expect_eq "NA reason (porting.md 3, Capabilities)" "port $K (kernel $K) provides no tasks and semaphores" \
  "$(jq -r '[.not_applicable[].reason] | unique | join(" | ")' "$r")"
expect_eq "verify's outcome" valid "$(jq -r .outcome "$d/jobs/$j/attempt-1/verify.json")"
expect_contains "closing table" "$j  OK" "$OUT"

expect_changes "the run wrote nothing into the tree" \
  "firmware/ports/$K/kernel.yaml" "firmware/ports/$K/port.cmake" "firmware/ports/$K/rbp_$K.c"
finish
