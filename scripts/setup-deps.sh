#!/usr/bin/env bash
# Installs everything rtosbench needs on Debian 12, from Debian packages only.
# Idempotent: packages already present are not reinstalled.
set -euo pipefail

packages=(
  # host tool
  cmake ninja-build g++ pkg-config git ccache
  libcli11-dev libboost-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  libyaml-cpp-dev libvalijson-dev libsqlite3-dev sqlite3 libssl-dev libgtest-dev libgmock-dev libarchive-dev
  # fuzzing (libFuzzer comes with clang's runtime)
  clang libclang-rt-14-dev
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
  # real probes (their command lines are exercised with no probe attached)
  openocd
  uhubctl  # doctor asks it whether the hub of a power-cycle bench switches the named port
  jq  # tests/run/e2e: the run tests read result JSON
  libpqxx-dev postgresql  # the PostgreSQL history (src/store/history_postgres.cpp) and its tests' server
  libcurl4-openssl-dev lava-server lava-dispatcher  # the lava bench (src/lava) and its test (tests/run/e2e/lava.sh)
)
if [[ "${RTOSBENCH_WITH_BROWSER:-0}" == 1 ]]; then
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "setup-deps: all ${#packages[@]} packages present"
  exit 0
fi
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
echo "setup-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
