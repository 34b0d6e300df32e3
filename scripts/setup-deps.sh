#!/usr/bin/env bash
# Installs what rtosbench needs on Debian 12, from Debian packages only.
# Idempotent: packages already present are not reinstalled.
#
#   scripts/setup-deps.sh demo   what the emulated bench needs (scripts/demo.sh):
#                                the host tool's build and libraries, the
#                                firmware toolchain, QEMU, the kernels' own builds
#   scripts/setup-deps.sh [all]  the demo set and what the tests need besides
#                                (scripts/test.sh): GoogleTest, clang and its
#                                fuzzer runtime, clang-format, PostgreSQL, LAVA,
#                                OpenOCD, ...
set -euo pipefail
mode=${1:-all}
case $mode in
  demo | all) ;;
  *)
    echo "usage: $0 [demo|all]" >&2
    exit 64
    ;;
esac

packages=(
  # host tool: its build and every library it links
  cmake ninja-build g++ pkg-config git ccache
  libcli11-dev libboost-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  libyaml-cpp-dev libvalijson-dev libsqlite3-dev libssl-dev libarchive-dev
  libcurl4-openssl-dev  # the lava bench's REST client (src/lava)
  libpqxx-dev  # the PostgreSQL history (src/store/history_postgres.cpp); the server is a test package
  # firmware and the emulated bench
  gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi qemu-system-arm
  # NuttX's own build (firmware/ports/nuttx): make and kconfig-conf
  make kconfig-frontends
  libstdc++-arm-none-eabi-newlib  # the mbedos port: Mbed OS' rtos:: classes are C++
  # the Zephyr port's build (firmware/ports/zephyr): module.yml (yaml, pykwalify and
  # its ruamel.yaml, only recommended by Debian, and its dateutil,
  # which Debian does not pull in), the ISR tables (pyelftools), the kernel object
  # lists (packaging),
  # the devicetree check (dtc); Kconfig and devicetree parsers come with Zephyr
  python3-yaml python3-pykwalify python3-ruamel.yaml python3-dateutil python3-pyelftools python3-packaging
  device-tree-compiler
)
if [[ $mode == all ]]; then
  packages+=(
    libgtest-dev libgmock-dev sqlite3
    clang-format  # scripts/check-format.sh
    universal-ctags  # tests/arch/function-length.sh: the functions' extents in src/
    # fuzzing (libFuzzer comes with clang's runtime)
    clang libclang-rt-14-dev
    # real probes (their command lines are exercised with no probe attached)
    openocd
    uhubctl  # doctor asks it whether the hub of a power-cycle bench switches the named port
    jq  # tests/run/e2e: the run tests read result JSON
    sigrok-cli  # rtosbench edges reads analyzer captures through it; tests/edges push synthetic VCDs through it
    sigrok-firmware-fx2lafw  # doctor checks an fx2lafw analyzer's firmware files (tests/run/e2e/analyzer.sh)
    postgresql  # the PostgreSQL history's tests' server
    lava-server lava-dispatcher  # the lava bench's test (tests/run/e2e/lava.sh)
    rt-tests  # cyclictest (2.4 in Debian 12): tests/import/e2e.sh measures with it and imports the result
  )
  if [[ "${RTOSBENCH_WITH_BROWSER:-0}" == 1 ]]; then
    packages+=(chromium)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "setup-deps ($mode): all ${#packages[@]} packages present"
  exit 0
fi
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
echo "setup-deps ($mode): installing ${#missing[@]} packages: ${missing[*]}"
echo "setup-deps: apt-get update"
$SUDO apt-get update -qq
# -q, not -qq: one line per package downloaded and set up, so a long install shows progress.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
