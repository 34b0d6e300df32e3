#!/usr/bin/env bash
# `run --only` / `--exclude` (job-id globs): --list shows the selection, a
# selection that matches nothing is a usage error listing the jobs, a run
# makes only the selected jobs, and --resume keeps the first session's
# selection.
source "$(dirname "$0")/lib.sh" "$@"
M=$DATA/run/select.yaml

rb_run --matrix "$M" --list
expect_eq "all four jobs" "bare-O2-tick1000-fpu0 bare-O2-tick100-fpu0 bare-Os-tick1000-fpu0 bare-Os-tick100-fpu0" \
  "$(echo "$OUT" | paste -sd' ')"
rb_run --matrix "$M" --list --only 'bare-O2-*'
expect_eq "--only" "bare-O2-tick1000-fpu0 bare-O2-tick100-fpu0" "$(echo "$OUT" | paste -sd' ')"
rb_run --matrix "$M" --list --only '*-tick100-*' --only '*-Os-tick1000-*' --exclude 'bare-Os-tick100-*'
expect_eq "--only twice, --exclude" "bare-O2-tick100-fpu0 bare-Os-tick1000-fpu0" "$(echo "$OUT" | paste -sd' ')"
rb_run --matrix "$M" --list --exclude 'bare-O?-tick1000-*'
expect_eq "--exclude alone" "bare-O2-tick100-fpu0 bare-Os-tick100-fpu0" "$(echo "$OUT" | paste -sd' ')"
rb_run --matrix "$M" --list --only 'freertos-*'
expect_eq "no match: usage error" 64 "$RC"
expect_contains "no match names the jobs" "bare-Os-tick100-fpu0" "$ERR"

rb_run --matrix "$M" --out "$WORK/runs" --only 'bare-Os-tick1000-*' --no-history
expect_eq "selected run" 0 "$RC"
d=$(run_dir "$WORK/runs")
expect_eq "one job ran" "bare-Os-tick1000-fpu0" "$(ls "$d/jobs" | paste -sd' ')"
expect_eq "run.json lists it alone" "bare-Os-tick1000-fpu0" "$(jq -r '[.jobs[].id] | join(" ")' "$d/run.json")"
expect_eq "selection recorded" '["bare-Os-tick1000-*"]' "$(jq -c .options.only "$d/run.json")"
rb_run --resume "$d" --no-history
expect_eq "resume" 0 "$RC"
expect_eq "resume keeps the selection" "bare-Os-tick1000-fpu0" "$(ls "$d/jobs" | paste -sd' ')"
expect_eq "selection still recorded" '["bare-Os-tick1000-*"]' "$(jq -c .options.only "$d/run.json")"
finish
