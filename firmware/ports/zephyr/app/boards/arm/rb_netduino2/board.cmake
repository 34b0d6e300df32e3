# SPDX-License-Identifier: Apache-2.0
# Run by rtosbench (scripts/run-qemu.sh, the qemu flasher): qemu-system-arm -M netduino2.
