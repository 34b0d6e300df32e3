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

# port_expect PORT KEY DEFAULT: the CONFIG value the port's entry in
# configs/qemu.yaml pins for KEY (its `expect:`), else DEFAULT. The matrix is
# the one place a kernel's exceptions live (TencentOS checks=partial, ChibiOS
# lookup=generic, NuttX its interrupt levels).
port_expect() {
  local v
  v=$("$root/scripts/kernel-env.sh" --expects | awk -v k="$1" -v key="$2" '$1 == k && $2 == key { print $3 }')
  echo "${v:-$3}"
}

# port_extra_sources PORT: appends to the array `extra` one
# -DRB_KERNEL_SOURCE_<EXTRA>=<dir> per extra source of PORT's pin in
# configs/qemu.yaml (scripts/kernel-env.sh --pins), the directory read from
# the variable scripts/kernel-env.sh exports for it,
# RTOSBENCH_KERNEL_<PORT>_<EXTRA> (uC/OS-III keeps its old names
# RTOSBENCH_KERNEL_UCOS3_CPU / _LIB). An unset variable ends the test as
# SKIPPED (exit 77) with its reason, except for uC/OS-III, whose recipe also
# finds uC-CPU and uC-LIB next to the uC-OS3 checkout (ports/ucos3/port.cmake).
port_extra_sources() {
  local port=$1 x var dir
  declare -A old_var=([ucos3.uc_cpu]=UCOS3_CPU [ucos3.uc_lib]=UCOS3_LIB)
  for x in $("$root/scripts/kernel-env.sh" --pins | awk -v k="$port" '$1 == k && $2 != "-" { print $2 }'); do
    var=RTOSBENCH_KERNEL_${old_var[$port.$x]:-${port^^}_${x^^}}
    dir=${!var:-}
    if [[ -z $dir ]]; then
      [[ $port == ucos3 ]] && continue
      echo "SKIPPED: source for $port's extra source $x not found: set $var to its checkout" \
        "(scripts/kernel-env.sh sets it from the kernel cache)"
      exit 77
    fi
    [[ -d $dir ]] || fail "$var='$dir' is not a directory"
    extra+=("-DRB_KERNEL_SOURCE_${x^^}=$dir")
  done
}
