# Shared by the port tests (sourced, not run).

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# matrix_copy MATRIX OUT [sed args...]: configs/MATRIX copied to OUT with its
# firmware: and bench: paths made absolute (the copy lives in a work
# directory), and the sed expressions given (-e ...) applied after. Needs $root.
matrix_copy() {
  local matrix=$1 out=$2
  shift 2
  sed -e "s|^firmware: .*|firmware: $root/firmware|" \
    -e "s|^bench: \(.*\)|bench: $root/configs/\1|" "$@" "$root/configs/$matrix" >"$out"
}

# port_build PORT BUILD_DIR GENERATOR WHAT [cmake -D args...]: configures and
# builds the firmware with the real toolchain into BUILD_DIR; fails, saying
# WHAT was built, on a configure or build error or on a warning in the port's
# own code (kernel sources are compiled with -w).
port_build() {
  local port=$1 build=$2 gen=$3 what=$4
  shift 4
  if ! cmake -S "$root/firmware" -B "$build" -G "$gen" -DRB_PORT="$port" "$@" \
    >"$build.configure.log" 2>&1; then
    cat "$build.configure.log" >&2
    fail "configuring $what failed"
  fi
  if ! cmake --build "$build" >"$build.build.log" 2>&1; then
    tail -40 "$build.build.log" >&2
    fail "building $what failed"
  fi
  if grep -i 'warning:' "$build.build.log" | grep -q "/ports/$port/"; then
    grep -i 'warning:' "$build.build.log" >&2
    fail "the $port port compiles with warnings ($what)"
  fi
}

# kernel_fact PORT JQ_FILTER: one fact of the port's kernel.yaml, as
# `rtosbench kernels show` reads it (the one place a kernel's pin, NA
# reasons, known defects and exceptions live). Needs $bin.
kernel_fact() {
  "$bin" kernels show "$1" | jq -r "$2"
}

# board_pins PORT BOARD: one `--expect KEY=VALUE` argument pair per CONFIG
# pin a capture of PORT on BOARD is verified against (the board's
# RB_BOARD_EXPECT_*, configs/qemu.yaml's expect:, the kernel's own
# exceptions), appended to the array `expect`.
board_pins() {
  local line
  while IFS= read -r line; do
    expect+=(--expect "$line")
  done < <("$bin" kernels expect "$1" --board "$2" --matrix "$root/configs/qemu.yaml")
}

# port_extra_sources PORT: appends to the array `extra` one
# -DRB_KERNEL_SOURCE_<EXTRA>=<dir> per extra source of PORT's pin, the
# directory read from RTOSBENCH_KERNEL_<PORT>_<EXTRA> (`rtosbench kernels env`
# sets it from the kernel cache). An unset variable ends the test as SKIPPED
# (exit 77) with its reason.
# port_source PORT ENV_VAR: sets `src` to the kernel checkout that ENV_VAR
# names (rtosbench kernels env), or skips the test (77) saying how to get it.
port_source() {
  src=${!2:-}
  if [[ -z $src ]]; then
    echo "SKIPPED: source for $1 not found: set $2 to a checkout of the kernel" \
      "(docs/kernels.md lists each kernel's upstream URL and tag)"
    exit 77
  fi
  [[ -d $src ]] || fail "$2='$src' is not a directory"
}

port_extra_sources() {
  local port=$1 x var dir
  for x in $(kernel_fact "$port" '.extra_sources[].name'); do
    var=RTOSBENCH_KERNEL_${port^^}_${x^^}
    dir=${!var:-}
    if [[ -z $dir ]]; then
      echo "SKIPPED: source for $port's extra source $x not found: set $var to its checkout" \
        "(eval \"\$(rtosbench kernels env)\" sets it from the kernel cache)"
      exit 77
    fi
    [[ -d $dir ]] || fail "$var='$dir' is not a directory"
    extra+=("-DRB_KERNEL_SOURCE_${x^^}=$dir")
  done
}
