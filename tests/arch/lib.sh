# Shared by the scratch-copy tests of docs/ARCHITECTURE.md, "Where a change
# belongs": each copies the source tree into a temporary directory, makes
# there the change a row of that table describes (and nothing else), runs
# the real tool on the emulated bench against the copy, and checks with
# `git status` that only the files the row names were added or changed.
# The source tree itself is never written.
# Usage in a test: source lib.sh RTOSBENCH_BIN SOURCE_DIR
set -euo pipefail
RB_BIN=${1:?rtosbench binary}
SRC=${2:?source tree}
# The tests need the emulated bench; without it they cannot run here.
for tool in qemu-system-arm arm-none-eabi-gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool not found in PATH (scripts/setup-deps.sh installs it)"
    exit 77
  fi
done
# rb_run, expect_eq, expect_contains, fail, finish, WORK (removed on exit).
source "$(dirname "${BASH_SOURCE[0]}")/../run/e2e/lib.sh" "$RB_BIN" "$SRC/tests/data"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
TREE=$WORK/tree
sgit() {
  git -C "$TREE" -c user.name=rtosbench-test -c user.email=test@invalid -c commit.gpgsign=false \
    -c core.hooksPath=/dev/null "$@"
}

# The scratch copy: the files git knows in SRC (tracked, and untracked ones
# not ignored, as they are now in the work tree; a tree without git: all of
# it but build directories), committed in a new repository so that
# `git status` shows exactly what the test changed.
scratch_copy() {
  mkdir -p "$TREE"
  if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$SRC" && git ls-files -z --cached --others --exclude-standard |
      while IFS= read -r -d '' f; do
        if [[ -e $f || -L $f ]]; then printf '%s\0' "$f"; fi
      done | xargs -0 cp -P --parents -t "$TREE")
  else
    tar -C "$SRC" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$TREE" -xf -
  fi
  sgit init -q
  sgit add -A
  sgit commit -qm "the tree as copied"
  expect_eq "scratch copy is clean" "" "$(changes)"
}

# Every path added, changed or removed since the copy, one per line, sorted.
changes() { sgit status --porcelain --untracked-files=all | sed 's/^...//' | LC_ALL=C sort; }

# expect_changes WHAT PATH...: exactly these paths changed in the copy.
expect_changes() {
  local what=$1
  shift
  expect_eq "$what" "$(printf '%s\n' "$@" | LC_ALL=C sort)" "$(changes)"
}

# The harness tests of the copy's table (firmware/harness/rb_tests.h), in order.
harness_tests() { grep -oE '^  X\([a-z0-9_]+' "$TREE/firmware/harness/rb_tests.h" | cut -c5-; }
# series_of TEST...: the series rb_tests.h gives those tests, in its order
# (names without :unit or @base).
series_of() {
  local t
  for t in "$@"; do
    grep -E "^  X\($t," "$TREE/firmware/harness/rb_tests.h" | sed -E 's/.*"([^"]*)"\) *\\?$/\1/' |
      tr ' ' '\n' | sed -E 's/[:@].*//'
  done | paste -sd' '
}

# write_bench FILE BOARD: a one-board emulated bench (input, outside the tree).
write_bench() {
  cat >"$1" <<EOB
bench: scratch
boards:
  - id: scratch-0
    board: $2
    flasher: qemu
EOB
}

# write_matrix FILE TESTS: the bare port, one variant, a few samples, on the
# bench bench.yaml next to FILE, firmware from the copy.
write_matrix() {
  cat >"$1" <<EOM
matrix: scratch
bench: bench.yaml
firmware: $TREE/firmware
toolchain:
  arm-none-eabi-gcc: "12.2.1"
kernels: [bare]
variants:
  opt: ["-O2 -g0"]
  tick_hz: [1000]
  fpu_context: [0]
tests: [$2]
samples: 1000
warmup: 100
expect:
  debugger: "0"
timeouts: {build: 300, flash: 30, capture: 60, inactivity: 20}
retries: {build: 0, flash: 0, capture: 0}
EOM
}
