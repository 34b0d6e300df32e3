#!/bin/sh
# `rtosbench verify -` with its standard input closed (not merely empty):
# refused with exit 66 and a message that says so, never read as a log.
#   stdin_closed.sh RTOSBENCH
bin=$1
err=$("$bin" verify - 2>&1 >/dev/null <&-)
rc=$?
if [ "$rc" -ne 66 ]; then
  echo "exit $rc, want 66; stderr: $err" >&2
  exit 1
fi
case $err in
  *"standard input"*closed*) echo "refused: $err" ;;
  *) echo "stderr does not say standard input is closed: $err" >&2; exit 1 ;;
esac
