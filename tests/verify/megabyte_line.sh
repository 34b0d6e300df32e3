#!/bin/sh
# A valid V2 log with an 8 MB noise line spliced in between two lines: the
# line must be skipped as overlong and the log stay valid (exit 0).
#   megabyte_line.sh RTOSBENCH WORKDIR VALID_LOG
bin=$1 dir=$2 log=$3
f=$dir/megabyte_line.log
head -n 10 "$log" > "$f" || exit 1
printf '%8000000s\n' '' | tr ' ' x >> "$f" || exit 1
tail -n +11 "$log" >> "$f" || exit 1
"$bin" verify "$f" > "$f.out" 2>&1
rc=$?
cat "$f.out"
rm -f "$f"
test "$rc" -eq 0 && grep -q 'overlong' "$f.out"
