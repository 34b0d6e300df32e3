#!/usr/bin/env bash
# Every failure the runner classifies, in one run on two emulated boards:
# a hang (TIMEOUT), a corrupt and a truncated capture (PROTOCOL_ERROR), bad
# counters (INVALID), QEMU dying mid-stream (PORT_ERROR), a build failure
# (BUILD_ERROR), a kernel without a port (PORT_MISSING) and one without a
# source (SOURCE_MISSING). The other jobs go on.
source "$(dirname "$0")/lib.sh" "$@"

rb_run --matrix "$DATA/run/failures.yaml" --out "$WORK/runs"
expect_eq "exit code (infrastructure failures present)" 2 "$RC"
d=$(run_dir "$WORK/runs")
s() { job_status "$d" "$1-O2-tick1000-fpu0"; }
r() { job_reason "$d" "$1-O2-tick1000-fpu0"; }
expect_eq "bare" OK "$(s bare)"
expect_eq "hang" TIMEOUT "$(s hang)"
expect_contains "hang reason" "port silent for 2 s before END" "$(r hang)"
expect_eq "corrupt" PROTOCOL_ERROR "$(s corrupt)"
expect_contains "corrupt reason" "checksum mismatch" "$(r corrupt)"
expect_eq "truncated" PROTOCOL_ERROR "$(s truncated)"
expect_contains "truncated reason" "lost line" "$(r truncated)"
expect_eq "badcounters" INVALID "$(s badcounters)"
expect_contains "badcounters reason" "irq=64 but task=61" "$(r badcounters)"
expect_eq "vanish" PORT_ERROR "$(s vanish)"
expect_contains "vanish reason" "QEMU exited" "$(r vanish)"
expect_eq "vanish: bytes before it died kept" true \
  "$(jq '.attempts[0].capture.bytes > 0' "$d/jobs/vanish-O2-tick1000-fpu0/result.json")"
expect_eq "broken" BUILD_ERROR "$(s broken)"
expect_contains "broken reason" "broken on purpose" "$(r broken)"
expect_eq "zephyr" PORT_MISSING "$(s zephyr)"
expect_contains "zephyr reason" "no firmware port 'zephyr'" "$(r zephyr)"
expect_eq "zephyr has no numbers" 0 "$(jq '.series | length' "$d/jobs/zephyr-O2-tick1000-fpu0/result.json")"
expect_eq "fakeos" SOURCE_MISSING "$(s fakeos)"
expect_contains "fakeos reason" "--kernel-source fakeos=PATH" "$(r fakeos)"
boards=$(jq -r '.attempts[].board' "$d"/jobs/*/result.json | sort -u | tr '\n' ' ')
expect_eq "both boards ran jobs" "qemu-a qemu-b " "$boards"
expect_eq "counts in run.json" 1 "$(jq '.counts.INVALID' "$d/run.json")"
expect_contains "table" "PORT_MISSING" "$OUT"
finish
