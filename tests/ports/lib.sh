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
# lookup=generic, NuttX lookup=list and its interrupt levels).
port_expect() {
  local v
  v=$("$root/scripts/kernel-env.sh" --expects | awk -v k="$1" -v key="$2" '$1 == k && $2 == key { print $3 }')
  echo "${v:-$3}"
}

# port_extra_sources PORT: one -DRB_KERNEL_SOURCE_<EXTRA>=PATH argument per
# extra source of the port's pin (configs/qemu.yaml), from
# RTOSBENCH_KERNEL_<PORT>_<EXTRA> (scripts/kernel-env.sh sets them from the
# cache; uC/OS-III's are RTOSBENCH_KERNEL_UCOS3_CPU and _LIB). An extra source
# without its variable is left to the port's recipe, which names what it lacks.
port_extra_sources() {
  local kernel extra var
  while read -r kernel extra _; do
    [[ $kernel == "$1" && $extra != - ]] || continue
    case $kernel.$extra in
      ucos3.uc_cpu) var=RTOSBENCH_KERNEL_UCOS3_CPU ;;
      ucos3.uc_lib) var=RTOSBENCH_KERNEL_UCOS3_LIB ;;
      *) var=RTOSBENCH_KERNEL_${kernel^^}_${extra^^} ;;
    esac
    [[ -n ${!var:-} ]] && echo "-DRB_KERNEL_SOURCE_${extra^^}=${!var}"
  done < <("$root/scripts/kernel-env.sh" --pins)
}
