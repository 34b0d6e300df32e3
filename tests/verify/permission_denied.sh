#!/bin/sh
# A log without read permission: exit 66 and "Permission denied". Root is
# not stopped by permission bits, so there the test reports itself skipped
# (exit 77) instead of passing.
#   permission_denied.sh RTOSBENCH WORKDIR ANY_LOG
bin=$1 dir=$2 log=$3
if [ "$(id -u)" = 0 ]; then
  echo "running as root: permission bits do not apply; skipped"
  exit 77
fi
f=$dir/unreadable.log
cp "$log" "$f" && chmod 000 "$f" || exit 1
out=$("$bin" verify "$f" 2>&1)
rc=$?
rm -f "$f"
echo "$out"
test "$rc" -eq 66 && echo "$out" | grep -q 'Permission denied'
