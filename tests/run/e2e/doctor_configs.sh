#!/usr/bin/env bash
# The shipped configurations validate and expand; doctor passes for the
# emulated bench and names what is missing (with the fix) for probe benches.
source "$(dirname "$0")/lib.sh" "$@"
CONFIGS=$DATA/../../configs

set +e
list=$("$RB" run --matrix "$CONFIGS/qemu.yaml" --list 2>&1); rc=$?
set -e
expect_eq "qemu.yaml valid" 0 "$rc"
expect_contains "qemu.yaml jobs" "bare-O2-tick1000-fpu0" "$list"
# One job per kernel port (one variant of each axis; `kernels: all`); every
# entry has its port.
kernels=$("$RB" kernels list | wc -l)
expect_eq "qemu.yaml: one job per kernel port ($kernels)" "$kernels" "$(echo "$list" | wc -l)"
expect_contains "qemu.yaml jobs" "chibios-O2-tick1000-fpu0" "$list"
expect_eq "qemu.yaml: no port missing" "" "$(echo "$list" | grep PORT_MISSING)"

# The LAVA example bench (run for real by run.e2e.lava) loads with the
# emulated matrix: one job per kernel, on its board.
set +e
list=$("$RB" run --matrix "$CONFIGS/qemu.yaml" --bench "$CONFIGS/benches/lava.yaml" --list 2>&1); rc=$?
set -e
expect_eq "benches/lava.yaml valid" 0 "$rc"
expect_eq "benches/lava.yaml: one job per kernel port ($kernels)" "$kernels" "$(echo "$list" | wc -l)"
expect_contains "benches/lava.yaml jobs" "bare-O2-tick1000-fpu0" "$list"

set +e
list=$("$RB" run --matrix "$CONFIGS/f407.yaml" --list 2>&1); rc=$?
set -e
expect_eq "f407.yaml valid" 0 "$rc"
expect_eq "f407.yaml job count ($kernels kernels x 2 opt x 2 tick)" "$((kernels * 4))" "$(echo "$list" | wc -l)"
expect_contains "f407.yaml ids" "freertos-Os-tick100-fpu0" "$list"
# A kernel entry without a firmware port: listed, and PORT_MISSING says so.
sed -e "s|^firmware: .*|firmware: $(cd "$CONFIGS/../firmware" && pwd)|" \
  -e "s|^bench: .*|bench: $(cd "$CONFIGS" && pwd)/benches/qemu.yaml|" \
  -e 's|^kernels: all$|kernels:\n  - all\n  - {name: noport, version: "1.0", git: https://example.invalid/noport, tag: v1.0}|' \
  "$CONFIGS/qemu.yaml" >"$WORK/noport.yaml"
set +e
list=$("$RB" run --matrix "$WORK/noport.yaml" --list 2>&1); rc=$?
set -e
expect_eq "a matrix with a kernel without port is valid" 0 "$rc"
expect_contains "absent ports reported" "noport-O2-tick1000-fpu0  PORT_MISSING: no firmware port 'noport'" "$list"

set +e
# An empty kernel cache: the machine's own cache must not decide the outcome.
out=$("$RB" doctor --matrix "$CONFIGS/qemu.yaml" --kernel-cache "$WORK/empty-kernel-cache" 2>&1); rc=$?
set -e
expect_eq "doctor on the emulated bench without kernel sources" 1 "$rc"
expect_contains "doctor names a missing kernel source" "freertos" "$out"
expect_contains "doctor checks qemu" "ok       qemu-system-arm" "$out"
expect_contains "doctor checks the pin" "12.2.1 (matches the pin)" "$out"

set +e
out=$("$RB" doctor --bench "$DATA/run/benches/openocd.yaml" 2>&1); rc=$?
set -e
expect_eq "doctor with an absent probe" 1 "$rc"
expect_contains "probe finding" "no USB debug probe with serial 0669FF000000000000000000" "$out"
expect_contains "fix" "fix: plug the probe in" "$out"
# The board's OpenOCD scripts, found where the real openocd finds them.
expect_contains "openocd scripts found" "ok       openocd scripts of disco-1: interface/stlink.cfg (" "$out"
expect_contains "the target script's place" "share/openocd/scripts/target/stm32f4x.cfg)" "$out"
sed 's|target/stm32f4x.cfg|target/stm32f4nope.cfg|' "$DATA/run/benches/openocd.yaml" >"$WORK/nope.yaml"
set +e
out=$("$RB" doctor --bench "$WORK/nope.yaml" 2>&1); rc=$?
set -e
expect_eq "doctor with a misspelt target script" 1 "$rc"
expect_contains "the missing script is named" "error    openocd scripts of disco-1: target/stm32f4nope.cfg not found here or in OpenOCD's script directories" "$out"

set +e
out=$(PATH=/usr/bin:/bin "$RB" doctor --bench "$DATA/run/benches/pyocd.yaml" --json 2>&1); rc=$?
set -e
expect_eq "doctor without pyocd" 1 "$rc"
expect_eq "pyocd is an error when the bench uses it" error "$(echo "$out" | jq -r '.findings[] | select(.topic=="pyocd") | .level')"
expect_eq "pyocd fix" 'install a current pyOCD with `pipx install pyocd`' "$(echo "$out" | jq -r '.findings[] | select(.topic=="pyocd") | .fix')"

# The two shipped hardware benches: valid; nothing of them is attached here.
set +e
out=$("$RB" doctor --bench "$CONFIGS/benches/f407-stlink.yaml" 2>&1); rc=$?
set -e
expect_eq "doctor on the ST-LINK VCP bench (nothing attached)" 1 "$rc"
expect_contains "openocd version checked" "ok       openocd: Open On-Chip Debugger 0.12" "$out"
expect_contains "the port is missing" "error    serial of disco-1: /dev/serial/by-id/usb-STMicroelectronics_STM32_STLink_066DFF485550755187121832-if02 does not exist" "$out"
expect_contains "the Discovery's VCP wiring is warned about" "warning  wiring of disco-1:" "$out"
expect_contains "the wires are named" "pin 12 (its PA2, USART TX) to PA3" "$out"
set +e
out=$("$RB" doctor --bench "$CONFIGS/benches/f407-external.yaml" --json 2>&1); rc=$?
set -e
expect_eq "doctor on the external-probe bench (nothing attached)" 1 "$rc"
expect_eq "no wiring warning for a USB-UART adapter" "" "$(echo "$out" | jq -r '.findings[] | select(.topic=="wiring of f407-1") | .level')"
expect_eq "the adapter's port is missing" error "$(echo "$out" | jq -r '.findings[] | select(.topic=="serial of f407-1") | .level')"
# The real uhubctl asked for the hub the power cycle names: none here.
expect_eq "the power cycle's hub is not there" error "$(echo "$out" | jq -r '.findings[] | select(.topic=="power cycle of f407-1") | .level')"
expect_contains "uhubctl was asked" "\`uhubctl -l 1-1 -p 2\` does not list hub 1-1 port 2" "$(echo "$out" | jq -r '.findings[] | select(.topic=="power cycle of f407-1") | .detail')"

# --probe runs the real openocd: no probe here, so the target does not answer.
set +e
out=$("$RB" doctor --bench "$DATA/run/benches/openocd.yaml" --probe --json 2>&1); rc=$?
set -e
expect_eq "doctor --probe without a probe" 1 "$rc"
expect_eq "the target finding is an error" error "$(echo "$out" | jq -r '.findings[] | select(.topic=="target of disco-1") | .level')"
expect_contains "openocd's own reason" "the target does not answer: \`openocd -c \"gdb_port disabled\" -c \"tcl_port disabled\" -c \"telnet_port disabled\" -f interface/stlink.cfg -c \"adapter serial 0669FF000000000000000000\" -f target/stm32f4x.cfg -c init -c \"mdw 0xE0042000\" -c shutdown\`" "$(echo "$out" | jq -r '.findings[] | select(.topic=="target of disco-1") | .detail')"
finish
