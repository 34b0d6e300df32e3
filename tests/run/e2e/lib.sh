# Shared by the end-to-end tests of `rtosbench run` / `doctor`: the real
# binary, the real arm-none-eabi-gcc, QEMU, OpenOCD and serial capture.
# Usage in a test: source lib.sh "$@"  (args: RTOSBENCH_BIN TEST_DATA)
set -euo pipefail
RB=${1:?rtosbench binary}
DATA=${2:?test data directory}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rtosbench-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CACHE=$WORK/build-cache
KCACHE=$WORK/kernel-cache
# Finished runs are recorded in the history: never in the user's.
export RTOSBENCH_HISTORY=$WORK/history.sqlite
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
  if [[ "$2" != "$3" ]]; then fail "$1: expected '$2', got '$3'"; else echo "ok: $1 = $3"; fi
}
# expect_contains WHAT NEEDLE HAYSTACK
expect_contains() {
  if [[ "$3" != *"$2"* ]]; then fail "$1: '$2' not in: $3"; else echo "ok: $1 contains '$2'"; fi
}
expect_file() {
  if [[ -s "$1" ]]; then echo "ok: $1 exists"; else fail "missing or empty: $1"; fi
}
# rb_run ARGS...: runs rtosbench with private caches; sets RC, OUT (stdout), ERR (stderr).
rb_run() {
  set +e
  "$RB" run --build-cache "$CACHE" --kernel-cache "$KCACHE" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
  RC=$?
  set -e
  OUT=$(<"$WORK/out.txt")
  ERR=$(<"$WORK/err.txt")
}
# The newest run directory under $1.
run_dir() { ls -td "$1"/*/ | head -1 | sed 's:/$::'; }
job_status() { jq -r .status "$1/jobs/$2/result.json"; }
job_reason() { jq -r .reason "$1/jobs/$2/result.json"; }
finish() {
  if ((failures > 0)); then
    echo "$failures check(s) failed" >&2
    echo "--- stdout:" >&2; cat "$WORK/out.txt" >&2 || true
    echo "--- stderr:" >&2; cat "$WORK/err.txt" >&2 || true
    exit 1
  fi
  echo "all checks passed"
}
