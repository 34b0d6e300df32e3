#!/usr/bin/env bash
# A run directory from elsewhere may hold symbolic links that lead outside
# it (issue 35 item 6): --resume refuses it (exit 65, naming the link) before
# it locks, truncates or appends to anything, and the link targets are left
# as they were.
source "$(dirname "$0")/lib.sh" "$@"

rb_run --matrix "$DATA/run/normal.yaml" --out "$WORK/runs" --no-history
expect_eq "first run" 0 "$RC"
d=$(run_dir "$WORK/runs")
job=$(ls "$d/jobs" | head -1)
printf 'precious\n' >"$WORK/victim-lock"
printf 'precious\n' >"$WORK/victim-log"
mkdir -p "$WORK/elsewhere"

resume() {
  set +e
  "$RB" run --resume "$d" --no-history >"$WORK/out.txt" 2>"$WORK/err.txt"
  RC=$?
  set -e
  ERR=$(<"$WORK/err.txt")
}

# The job must run again so that job.log is written: its result goes.
rm "$d/jobs/$job/result.json"
rm -f "$d/run.lock" "$d/jobs/$job/job.log"
ln -s "$WORK/victim-lock" "$d/run.lock"
ln -s "$WORK/victim-log" "$d/jobs/$job/job.log"
resume
expect_eq "resume with links: refused as malformed input" 65 "$RC"
expect_contains "the refusal names a link" "is a symbolic link" "$ERR"
expect_eq "run.lock's target untouched" precious "$(<"$WORK/victim-lock")"
expect_eq "job.log's target untouched" precious "$(<"$WORK/victim-log")"

# A linked folder is refused as well: nothing is written through it.
rm "$d/run.lock" "$d/jobs/$job/job.log"
mv "$d/jobs/$job" "$WORK/elsewhere/$job"
ln -s "$WORK/elsewhere/$job" "$d/jobs/$job"
sleep 1.1
touch "$WORK/before-resume"
resume
expect_eq "resume with a linked job folder: refused" 65 "$RC"
expect_contains "the refusal names the folder" "jobs/$job is a symbolic link" "$ERR"
expect_eq "nothing written into the linked folder" "" \
  "$(find "$WORK/elsewhere/$job" -newer "$WORK/before-resume" -print)"

# A FIFO (or a device) where a file belongs is refused too.
rm "$d/jobs/$job"
mv "$WORK/elsewhere/$job" "$d/jobs/$job"
mkfifo "$d/jobs/$job/job.log"
resume
expect_eq "resume with a FIFO: refused" 65 "$RC"
expect_contains "the refusal names the FIFO" "is not a regular file or folder" "$ERR"

# Without them, the same directory resumes and finishes the job.
rm "$d/jobs/$job/job.log"
resume
expect_eq "resume without links" 0 "$RC"
expect_eq "the job ran again" OK "$(job_status "$d" "$job")"
finish
