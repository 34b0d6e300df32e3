# Shared helpers of the firmware end-to-end tests (sourced, not run).

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# fw_configure_build SRC BUILD GENERATOR [cmake -D args...]: configures and
# builds the firmware with the real toolchain; fails with the build output.
fw_configure_build() {
  local src=$1 build=$2 gen=$3
  shift 3
  if ! cmake -S "$src" -B "$build" -G "$gen" "$@" >"$build.configure.log" 2>&1; then
    cat "$build.configure.log" >&2
    fail "configuring the firmware in $build failed"
  fi
  if ! cmake --build "$build" >"$build.build.log" 2>&1; then
    cat "$build.build.log" >&2
    fail "building the firmware in $build failed"
  fi
  if grep -qi 'warning:' "$build.build.log"; then
    grep -i 'warning:' "$build.build.log" >&2
    fail "the firmware build in $build has compiler warnings"
  fi
}

# fw_check_outputs BUILD: the fixed output names exist and size.json agrees
# with size.txt (flash = text + data, ram = data + bss).
fw_check_outputs() {
  local build=$1 f
  for f in rtosbench-fw.elf rtosbench-fw.map rtosbench-fw.bin size.txt size.json; do
    [[ -s $build/$f ]] || fail "$build/$f is missing or empty"
  done
  local text data bss
  read -r text data bss _ < <(sed -n 2p "$build/size.txt")
  [[ $text =~ ^[0-9]+$ && $data =~ ^[0-9]+$ && $bss =~ ^[0-9]+$ ]] ||
    fail "cannot read text/data/bss from $build/size.txt"
  local want
  want="{\"text\":$text,\"data\":$data,\"bss\":$bss,\"flash\":$((text + data)),\"ram\":$((data + bss))}"
  [[ $(cat "$build/size.json") == "$want" ]] ||
    fail "size.json is '$(cat "$build/size.json")', expected '$want'"
}

# config_value LOG KEY: the value of CONFIG key KEY in a firmware log.
config_value() {
  grep '^CONFIG,' "$1" | cut -d'|' -f1 | tr ',' '\n' | sed -n "s/^$2=//p" | head -1
}
