#!/usr/bin/env bash
# ARCHITECTURE.md, "add a board": a copy of firmware/boards/qemu-netduinoplus2/
# under a new name is a board the next run knows (the host reads its
# board.cmake at run time), with no other file changed. The bare port runs
# on it through a bench that names it (the bench and the matrix are input
# written outside the tree) and reports the copy's name and declarations.
source "$(dirname "$0")/lib.sh" "$@"
B=qemu-scratchboard
scratch_copy
write_bench "$WORK/bench.yaml" "$B"
write_matrix "$WORK/m.yaml" "api_overhead, wake_latency"

rb_run --matrix "$WORK/m.yaml" --list
expect_eq "before: a bench naming $B is a usage error" 64 "$RC"
expect_contains "before: the error names the board" "$B" "$ERR"

cp -r "$TREE/firmware/boards/qemu-netduinoplus2" "$TREE/firmware/boards/$B"
expect_changes "only the board directory is new" \
  "firmware/boards/$B/board.c" "firmware/boards/$B/board.cmake" "firmware/boards/$B/rb_board_hw.h"

rb_run --matrix "$WORK/m.yaml" --out "$WORK/runs" --no-history
expect_eq "exit code" 0 "$RC"
d=$(run_dir "$WORK/runs")
j=bare-O2-tick1000-fpu0
r=$d/jobs/$j/result.json
expect_eq "status" OK "$(job_status "$d" $j)"
expect_eq "the banner names the board" "rtosbench-fw: board=$B" \
  "$(head -n 1 "$d/jobs/$j/attempt-1/capture.raw" | cut -d' ' -f1-2)"
expect_eq "CONFIG board=" "$B" "$(jq -r .conditions.board "$r")"
expect_eq "result's board" "$B" "$(jq -r .board.name "$r")"
expect_eq "its declarations, read from the copy" \
  "$(cat "$TREE/firmware/boards/$B/board.cmake" "$TREE/firmware/boards/common/qemu-stm32.cmake" |
    grep -c '^set(RB_BOARD_NOT_MEASURED_')" \
  "$(jq '.board.not_measured | length' "$r")"
expect_eq "measured" "$(series_of ruler api_overhead wake_latency)" \
  "$(jq -r '[.series[].name] | join(" ")' "$r")"
expect_eq "verify's outcome" valid "$(jq -r .outcome "$d/jobs/$j/attempt-1/verify.json")"

expect_changes "the run wrote nothing into the tree" \
  "firmware/boards/$B/board.c" "firmware/boards/$B/board.cmake" "firmware/boards/$B/rb_board_hw.h"
finish
