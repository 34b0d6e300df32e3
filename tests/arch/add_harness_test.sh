#!/usr/bin/env bash
# ARCHITECTURE.md, "add a harness test": a new firmware/harness/tests/<test>.c
# and its one line in firmware/harness/rb_tests.h, nothing else, make a test
# the firmware runs, a matrix may select and the host knows (series, unit,
# baseline, read from the table at run time). The bare port runs it on QEMU:
# its RESULT series is in the job's result, verify accepts it against the
# copy's table, and the report shows it.
source "$(dirname "$0")/lib.sh" "$@"
T=give_twice
scratch_copy
write_bench "$WORK/bench.yaml" qemu-netduinoplus2
write_matrix "$WORK/m.yaml" "$T"

rb_run --matrix "$WORK/m.yaml" --list
expect_eq "before: a matrix selecting $T is a usage error" 64 "$RC"
expect_contains "before: the error names the test" "$T" "$ERR"

cat >"$TREE/firmware/harness/tests/$T.c" <<'EOC'
/* give_twice: two gives of one binary semaphore that is already full, in one
 * task: neither finds a waiter, so no switch happens. Timed by the two-call
 * window (rb_window2); baseline ruler_loop2. */
#include "rb_harness.h"

void rb_test_give_twice(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_window2_rc = RBP_OK;
  for (uint32_t i = 0; i < w + n; i++) {
    uint32_t d = rb_window2(RB_S_FREE, rbp_port.sem_give, RB_S_FREE, rbp_port.sem_give);
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_check(rb_window2_rc, "give_twice: sem give/give");
  rb_emit_series("give_twice", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_LOOP2);
}
EOC
# Its line, before sleep_wake (which stays last: rb_tests.h says why).
sed -i "s/^  X(sleep_wake,/  X($T, RBP_HAS_TASKS, RB_PACE_FREE, \"$T@ruler_loop2\") \\\\\n&/" \
  "$TREE/firmware/harness/rb_tests.h"
expect_eq "one line added to the table" 1 "$(sgit diff --numstat -- firmware/harness/rb_tests.h | awk '{print $1 "+" $2}' | sed 's/+0$//')"
expect_eq "the table lists it" "$T sleep_wake" "$(harness_tests | tail -n 2 | paste -sd' ')"
expect_changes "only the test's file and the table changed" \
  "firmware/harness/rb_tests.h" "firmware/harness/tests/$T.c"

rb_run --matrix "$WORK/m.yaml" --out "$WORK/runs" --no-history
expect_eq "exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
j=bare-O2-tick1000-fpu0
r=$d/jobs/$j/result.json
cap=$d/jobs/$j/attempt-1/capture.raw
expect_eq "status" OK "$(job_status "$d" $j)"
expect_eq "the firmware ran it" 1 "$(grep -c "^TEST,$T|" "$cap")"
expect_eq "its RESULT line" 1 "$(grep -c "^RESULT,$T," "$cap")"
s=$(jq -c --arg t "$T" '.series[] | select(.name == $t)' "$r")
expect_eq "series in the result" "$T" "$(jq -r .name <<<"$s")"
expect_eq "its test" "$T" "$(jq -r .test <<<"$s")"
expect_eq "its baseline, from the table" ruler_loop2 "$(jq -r .base <<<"$s")"
expect_eq "its unit, the counter's" instructions "$(jq -r .unit <<<"$s")"
expect_eq "all samples" 1000 "$(jq -r .n <<<"$s")"
expect_eq "a median above its baseline" true "$(jq '.median_ticks > .base_ticks and .base_ticks > 0' <<<"$s")"

set +e
"$RB" verify "$cap" --firmware "$TREE/firmware" --json "$WORK/verify.json" >"$WORK/verify.txt" 2>&1
vrc=$?
set -e
expect_eq "verify --firmware (the copy's table) exit" 0 "$vrc"
expect_eq "verify re-derived it" "ruler_loop2 1000" \
  "$(jq -r --arg t "$T" '.series[] | select(.name == $t) | "\(.base) \(.n)"' "$WORK/verify.json")"

"$RB" report "$d" --md "$WORK/report.md" >/dev/null 2>&1
expect_eq "the report's series table has it" 1 "$(grep -c "^| $j | $T | $T |" "$WORK/report.md")"

expect_changes "the run wrote nothing into the tree" \
  "firmware/harness/rb_tests.h" "firmware/harness/tests/$T.c"
finish
