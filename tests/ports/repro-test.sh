#!/usr/bin/env bash
# End-to-end test that a port's image is byte-reproducible (docs/firmware.md,
# "Reproducible images"): a second clean build of the image the suite already
# made, at other absolute paths, must give the same rtosbench-fw.bin (the
# bytes that are flashed) and the same rtosbench-fw.elf.
#
#   repro-test.sh PORT ENV_VAR RTOSBENCH_BIN REPO_ROOT WORK_DIR GENERATOR BOARD REFERENCE
#
# REFERENCE is the build directory another port test made with the options
# below (tests.cmake: ports_<port>_f407_build's, the bare port's
# ports_bare_qemu_link's); it is brought up to date by `cmake --build` (a
# no-op when it is) or made here when absent, so this test also runs alone.
# The second build is the only one this test adds. It differs from the
# reference in every absolute path the compiler sees: the firmware tree,
# the kernel source and its extra sources are reached through symbolic links
# under another directory, and the build directory is another one, of
# another length. So equal bytes show the prefix maps at work, and the fixed
# build date (SOURCE_DATE_EPOCH) too, the two builds being minutes apart.
# The compiler cache (ccache, which NuttX's make uses) is off for it: an
# object taken from the cache would prove nothing.
#
# The kernel source comes from ENV_VAR as in port-test.sh (unset: exit 77,
# reported as skipped); the bare port (ENV_VAR "-") needs none. Every kernel
# checkout the build read must still be clean afterwards (`git status
# --porcelain --ignored` prints nothing): the kernel cache is never written.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

port=$1 env_var=$2 bin=$3 root=$4 work=$5 gen=$6 board=$7 ref=$8
[[ -x $bin ]] || fail "rtosbench binary not found: $bin"

repro=$work/repro/second-build-at-another-path/$port
rm -rf "$repro"
mkdir -p "$repro/links"
# The firmware tree through a link: another absolute path for the same files.
ln -s "$root/firmware" "$repro/links/firmware"

checkouts=()
ref_args=() other_args=()
if [[ $env_var != - ]]; then
  version=$(kernel_fact "$port" .version)
  port_source "$port" "$env_var"
  extra=()
  port_extra_sources "$port"
  ln -s "$src" "$repro/links/kernel"
  checkouts+=("$src")
  ref_args+=("-DRB_KERNEL_SOURCE=$src" "-DRB_KERNEL_VERSION=$version" "${extra[@]}")
  other_args+=("-DRB_KERNEL_SOURCE=$repro/links/kernel" "-DRB_KERNEL_VERSION=$version")
  for e in "${extra[@]}"; do
    name=${e#-DRB_KERNEL_SOURCE_}
    name=${name%%=*}
    dir=${e#*=}
    ln -s "$dir" "$repro/links/kernel-$name"
    checkouts+=("$dir")
    other_args+=("-DRB_KERNEL_SOURCE_$name=$repro/links/kernel-$name")
  done
fi
# Every checkout must be clean when the test ends, whether the builds
# succeeded or not (a build that wrote into its source would show here).
checkouts_clean() {
  local c
  for c in "${checkouts[@]}"; do
    if [[ -n $(git -C "$c" status --porcelain --ignored 2>&1) ]]; then
      git -C "$c" status --porcelain --ignored | head >&2
      echo "FAIL: the kernel checkout $c is no longer clean after the builds" >&2
      return 1
    fi
  done
}
trap 'checkouts_clean || exit 1' EXIT

# The options of port-test.sh's builds (and of ports_bare_qemu_build).
opts=(-DRB_BOARD="$board" -DRB_SAMPLES=2000 -DRB_WARMUP=200 -DRB_NONCE=5eed0105)

start=$SECONDS
if [[ -f $ref/CMakeCache.txt ]]; then
  cmake --build "$ref" >"$repro/reference.build.log" 2>&1 ||
    { tail -40 "$repro/reference.build.log" >&2; fail "bringing the reference build $ref up to date failed"; }
  echo "reference: $ref (made by another port test, up to date in $((SECONDS - start)) s)"
else
  mkdir -p "$(dirname "$ref")"
  port_build "$port" "$ref" "$gen" "the reference $port image for $board" "${opts[@]}" "${ref_args[@]}"
  echo "reference: $ref (absent: built here in $((SECONDS - start)) s)"
fi

start=$SECONDS
second=$repro/build-dir-two
(
  export CCACHE_DISABLE=1
  root=$repro/links # port_build configures "$root/firmware"
  port_build "$port" "$second" "$gen" "the second $port image for $board" "${opts[@]}" "${other_args[@]}"
)
echo "second build at other paths in $((SECONDS - start)) s"


same=()
for f in rtosbench-fw.bin rtosbench-fw.elf; do
  if cmp -s "$ref/$f" "$second/$f"; then
    same+=("$f")
    echo "$f: identical ($(wc -c <"$second/$f") bytes, sha256 $(sha256sum "$second/$f" | cut -c1-16)...)"
  else
    cmp "$ref/$f" "$second/$f" | head -1 >&2 || true
    fail "$port for $board: $f differs between $ref and $second (kept for inspection," \
      "e.g. diffoscope, or strings(1) on both)"
  fi
done
rm -rf "$repro"
echo "$port for $board: reproducible (${same[*]} identical across two build directories)"
