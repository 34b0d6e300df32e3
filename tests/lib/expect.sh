# The checks the end-to-end scripts that stop at their first failure share
# (tests/report/e2e.sh, tests/bundle/e2e.sh, tests/store/e2e/postgres_history.sh):
# one "ok:" line per check, "FAIL:" and exit 1 on the first that fails.
# Sourced; the caller sets $work.
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
# Runs the command, expects exit status $1; its output is in $out.
expect_status() {
  local want=$1
  shift
  set +e
  out=$("$@" 2>&1)
  local got=$?
  set -e
  if [[ $got != "$want" ]]; then
    echo "$out" >&2
    fail "exit $got (expected $want): $*"
  fi
  ok "exit $want: ${*##*/}"
}
contains() { grep -qF -- "$2" <<<"$1" || { echo "$1" >&2; fail "output lacks: $2"; }; }
# The one run directory under $work/$1.
run_dir() { local d=("$work/$1"/*/); [[ -d ${d[0]} ]] || fail "no run directory in $work/$1"; echo "${d[0]%/}"; }
