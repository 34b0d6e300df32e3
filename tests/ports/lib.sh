# Shared by the port tests (sourced, not run).

fail() {
  echo "FAIL: $*" >&2
  exit 1
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
