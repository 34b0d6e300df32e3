#!/usr/bin/env bash
# The hostile matrix and bench corpus (issue 13) against the real
# `rtosbench run --list` and `rtosbench run`: every file under tests/matrix/hostile names on its
# first line, `# expect: TEXT`, a diagnostic the load must print. Each hostile
# file must be refused with exit 64 (nothing run), stderr must hold TEXT in a
# `FILE:LINE:COLUMN: error:` line, print nothing but printable UTF-8, and no
# command the file smuggles may have run (no FILE appears). Huge and alias-bomb
# documents are written here. The good matrix and bench are the positive
# control: listed with exit 0.
#
#   hostile.sh RTOSBENCH_BIN CORPUS_DIR WORK_DIR
set -uo pipefail
bin=$1 corpus=$2 work=$3
rm -rf "$work" && mkdir -p "$work/cwd" "$work/gen" || exit 1
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# Runs `run --list` (or, with RUN_FULL=1, a whole `run`) from an empty
# directory; sets rc, out, err.
list() {
  local mode=(--list)
  [[ ${RUN_FULL:-0} == 1 ]] && mode=(--no-history)
  (cd "$work/cwd" && "$bin" run "${mode[@]}" --out "$work/out" "$@" >"$work/stdout" 2>"$work/stderr")
  rc=$?
  out=$(cat "$work/stdout")
  err=$(cat "$work/stderr")
}

good_matrix=$corpus/good-matrix.yaml
good_bench=$corpus/good-bench.yaml
list --matrix "$good_matrix" --bench "$good_bench"
[[ $rc == 0 && $out == *bare-O2-tick1000-fpu0* ]] || fail "positive control: rc=$rc out=$out err=$err"

# Generated: larger than the 1 MiB limit, and 10^10 nodes through aliases.
{ printf 'matrix: m\nnote: "'; head -c 2000000 /dev/zero | tr '\0' a; printf '"\n'; } >"$work/gen/matrix-huge.yaml"
huge_expect="larger than"
{
  printf 'matrix: m\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n'
  for i in 1 2 3 4 5 6 7 8 9; do
    printf 'a%d: &a%d [' "$i" "$i"
    for k in 0 1 2 3 4 5 6 7 8 9; do printf '%s*a%d' "$([[ $k == 0 ]] || echo ', ')" $((i - 1)); done
    printf ']\n'
  done
} >"$work/gen/matrix-laughs.yaml"
# A 900 kB value where an allow-list applies (std::regex recurses per character).
{
  printf 'matrix: m\nboard: qemu-netduinoplus2\nkernels:\n  - name: k\n    version: "1"\n    tag: v1\n    git: https://'
  head -c 900000 /dev/zero | tr '\0' a
  printf '\n'
} >"$work/gen/matrix-long-git.yaml"

n=0
for f in "$corpus"/matrix-*.yaml "$corpus"/bench-*.yaml "$work"/gen/*.yaml; do
  name=$(basename "$f")
  case $name in
    matrix-huge.yaml) expect=$huge_expect ;;
    matrix-laughs.yaml) expect="YAML nodes" ;;
    matrix-long-git.yaml) expect="longer than 4096 bytes" ;;
    *) expect=$(head -1 "$f" | sed -n 's/^# expect: //p') ;;
  esac
  [[ -n $expect ]] || { fail "$name: no '# expect:' line"; continue; }
  rm -f "$work/cwd/FILE" /tmp/FILE
  if [[ $name == bench-* ]]; then
    list --matrix "$good_matrix" --bench "$f"
  else
    list --matrix "$f" --bench "$good_bench"
  fi
  n=$((n + 1))
  [[ $rc == 64 ]] || fail "$name: exit $rc, want 64 (stderr: $err)"
  grep -F -- "$expect" "$work/stderr" | grep -qE ":[0-9]+:[0-9]+: error: |: error: " ||
    fail "$name: no diagnostic holding '$expect' (stderr: $err)"
  grep -qE "^$(printf '%s' "$f" | sed 's/[][\.*^$/]/\\&/g'):[0-9]+:[0-9]+: error: " "$work/stderr" ||
    [[ $name == matrix-huge.yaml ]] || fail "$name: no file:line:column diagnostic (stderr: $err)"
  if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$work/stderr"; then fail "$name: control characters on stderr"; fi
  iconv -f UTF-8 -t UTF-8 "$work/stderr" >/dev/null 2>&1 || fail "$name: stderr is not valid UTF-8"
  [[ ! -e $work/cwd/FILE && ! -e /tmp/FILE ]] || fail "$name: a smuggled command ran (FILE exists)"
  [[ ! -e $work/out ]] || fail "$name: the refused load wrote $work/out"
  # The same file given to a whole `run`: refused before anything is built,
  # flashed or written.
  if [[ $name == bench-* ]]; then
    RUN_FULL=1 list --matrix "$good_matrix" --bench "$f"
  else
    RUN_FULL=1 list --matrix "$f" --bench "$good_bench"
  fi
  [[ $rc == 64 ]] || fail "$name: run exited $rc, want 64 (stderr: $err)"
  [[ ! -e $work/cwd/FILE && ! -e /tmp/FILE ]] || fail "$name: run: a smuggled command ran"
  [[ ! -e $work/out ]] || fail "$name: the refused run wrote $work/out"
done
echo "hostile corpus: $n files, $failures failure(s)"
((n >= 30)) || fail "only $n hostile files"
((failures == 0))
