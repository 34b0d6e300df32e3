#!/usr/bin/env bash
# Test: configure and build the firmware with the real arm-none-eabi-gcc,
# check the output files, print the image size.
#   build.sh FIRMWARE_SRC BUILD_DIR GENERATOR [-DRB_...=VALUE ...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
src=$1 build=$2 gen=$3
shift 3
rm -rf "$build"
mkdir -p "$(dirname "$build")"
fw_configure_build "$src" "$build" "$gen" "$@"
fw_check_outputs "$build"
echo "firmware $(basename "$build"):"
cat "$build/size.txt"
echo "size.json: $(cat "$build/size.json")"
