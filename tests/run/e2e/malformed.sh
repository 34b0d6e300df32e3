#!/usr/bin/env bash
# A malformed matrix and bench: exit 64, nothing run, every error reported at
# once as file:line:column with the allowed values; runs that must not start
# (compiler pin, no board of the matrix's type) exit 69. Golden file:
# tests/data/matrix/malformed.expected (regenerate: scripts/regen-run-golden.sh).
source "$(dirname "$0")/lib.sh" "$@"

cd "$DATA/matrix"
set +e
"$RB" run --matrix malformed.yaml --out "$WORK/runs" >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "exit code" 64 "$RC"
# The board list is the tree's (firmware/boards): the golden file says BOARDS.
boards=$(find "$DATA/../../firmware/boards" -mindepth 2 -maxdepth 2 -name board.cmake | sed 's|/board.cmake$||; s|.*/||' | LC_ALL=C sort | paste -sd, | sed 's/,/, /g')
sed -i "s/(allowed: $boards)/(allowed: BOARDS)/" "$WORK/err.txt"
if diff -u malformed.expected "$WORK/err.txt"; then echo "ok: diagnostics match the golden file"; else fail "diagnostics differ from malformed.expected"; fi
expect_eq "nothing was run" false "$([[ -d $WORK/runs ]] && echo true || echo false)"

set +e
"$RB" run --matrix syntax.yaml --out "$WORK/runs" >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "syntax error exit code" 64 "$RC"
expect_contains "syntax error position" "syntax.yaml:5:1: error: YAML syntax" "$(cat "$WORK/err.txt")"

set +e
"$RB" run --matrix does-not-exist.yaml >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "missing matrix exit code" 66 "$RC"

# The command line: CLI11 says what is wrong, exit 64 (no hand-made checks).
set +e
"$RB" run --resume "$WORK" --matrix normal.yaml >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "--resume with --matrix" 64 "$RC"
expect_contains "--resume with --matrix says why" "--matrix excludes --resume" "$(cat "$WORK/err.txt")"
set +e
"$RB" run >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "neither --matrix nor --resume" 64 "$RC"
expect_contains "neither says what is needed" "--matrix FILE (or --resume DIR)" "$(cat "$WORK/err.txt")"
set +e
"$RB" run --resume "$WORK/not-a-run" >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "--resume of a directory that is not a run" 66 "$RC"
expect_contains "one report, named" "rtosbench run: $WORK/not-a-run is not a run directory" "$(cat "$WORK/err.txt")"

set +e
"$RB" doctor --matrix malformed.yaml >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "doctor on a malformed matrix" 64 "$RC"

# A valid matrix whose compiler pin differs from this machine's compiler.
set +e
"$RB" run --matrix "$DATA/run/wrongpin.yaml" --out "$WORK/runs" >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "compiler pin differs: refused" 69 "$RC"
expect_contains "refusal names both versions" "but the matrix pins 99.1.0" "$(cat "$WORK/err.txt")"
expect_eq "refused before making a run directory" false "$([[ -d $WORK/runs ]] && echo true || echo false)"

# A bench without a board of the matrix's type.
set +e
"$RB" run --matrix "$DATA/run/normal.yaml" --bench "$DATA/run/benches/openocd.yaml" --out "$WORK/runs" \
  >"$WORK/out.txt" 2>"$WORK/err.txt"
RC=$?
set -e
expect_eq "no board for the matrix: refused" 69 "$RC"
expect_contains "refusal says which board" "no board instance of board 'qemu-netduinoplus2'" "$(cat "$WORK/err.txt")"
finish
