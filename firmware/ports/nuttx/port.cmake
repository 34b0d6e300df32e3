# Build recipe of the NuttX port: NuttX and nuttx-apps (the version the matrix
# pins, tag nuttx-12.4.0) from the checkouts RB_KERNEL_SOURCE and
# RB_KERNEL_SOURCE_APPS (never copied into this repository, never modified:
# NuttX builds in a copy), the POSIX port (ports/posix/) with the NuttX layer
# (rbp_sys_nuttx.c). NuttX owns start-up, so it links the image itself:
# image.cmake.
#
#   -DRB_KERNEL_SOURCE=<apache/nuttx checkout>
#   -DRB_KERNEL_SOURCE_APPS=<apache/nuttx-apps checkout>   (default: the
#       sibling directory `apps` or `nuttx-apps` of the nuttx checkout)
#   -DRB_TIME_SLICING=ON|OFF   SCHED_RR with a one-tick CONFIG_RR_INTERVAL (default ON)
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the checkout
# (its .version file or its git tag nuttx-<version>, git HEAD); left at n/a
# they are read from it.

set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(RB_TIME_SLICING)
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=1)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=0)
endif()

rb_require_kernel_source(
  FILES sched/init/nx_start.c tools/configure.sh boards/arm/stm32/stm32f4discovery/include/board.h
        arch/arm/src/stm32/stm32_rcc.c
  HINT "an apache/nuttx checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")

set(RB_KERNEL_SOURCE_APPS "" CACHE PATH "apache/nuttx-apps checkout (nuttx port)")
if(RB_KERNEL_SOURCE_APPS STREQUAL "")
  foreach(_rb_cand "${RB_KERNEL_SOURCE}/../apps" "${RB_KERNEL_SOURCE}/../nuttx-apps")
    if(EXISTS "${_rb_cand}/Application.mk")
      get_filename_component(RB_KERNEL_SOURCE_APPS "${_rb_cand}" ABSOLUTE)
      break()
    endif()
  endforeach()
endif()
if(NOT EXISTS "${RB_KERNEL_SOURCE_APPS}/Application.mk")
  message(FATAL_ERROR "RB_PORT=nuttx needs nuttx-apps: RB_KERNEL_SOURCE_APPS='${RB_KERNEL_SOURCE_APPS}' has no "
    "Application.mk; pass -DRB_KERNEL_SOURCE_APPS=<apache/nuttx-apps checkout at the tag configs/qemu.yaml pins>")
endif()

# ---- Version and commit of the checkout ----------------------------------
set(_rb_nx_ver "")
if(EXISTS "${RB_KERNEL_SOURCE}/.version")
  file(STRINGS "${RB_KERNEL_SOURCE}/.version" _rb_l REGEX "^CONFIG_VERSION_STRING=")
  string(REGEX REPLACE "^CONFIG_VERSION_STRING=\"?([0-9.]+)\"?.*" "\\1" _rb_nx_ver "${_rb_l}")
  set(_rb_nx_from ".version")
else()
  execute_process(COMMAND git -C "${RB_KERNEL_SOURCE}" describe --tags --exact-match --match "nuttx-*" HEAD
    OUTPUT_VARIABLE _rb_tag OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REGEX REPLACE "^nuttx-([0-9]+\\.[0-9]+\\.[0-9]+)$" "\\1" _rb_nx_ver "${_rb_tag}")
  set(_rb_nx_from "git tag ${_rb_tag}")
endif()
if(NOT _rb_nx_ver MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "RB_PORT=nuttx: cannot tell the version of '${RB_KERNEL_SOURCE}': no .version "
    "file and HEAD is not at a nuttx-X.Y.Z tag")
endif()
rb_adopt_kernel_version("${_rb_nx_ver}" "'${RB_KERNEL_SOURCE}' is NuttX ${_rb_nx_ver} (${_rb_nx_from})")
rb_check_kernel_commit("${RB_KERNEL_SOURCE}")

# ---- The core: NuttX's ARMv7-M and ARMv8-M ports ----------------------------
# NuttX 12.4's arch/arm/src/stm32 covers the STM32F4 (Cortex-M4F) and the
# STM32F20x (Cortex-M3: its Kconfig's STM32_STM32F20XX selects ARCH_CORTEXM3);
# both build arch/arm/src/armv7-m. For the Cortex-M33, NuttX 12.4 has the
# ARMv8-M CPU port (arch/arm/src/armv8-m) but no chip or board for QEMU's
# MPS2 AN505 (its Cortex-M33 chips are nrf53, nrf91, stm32l5 and stm32u5):
# the port brings its own, out of NuttX's tree (chips/rb_an505, a minimal
# chip on NuttX's ARMv8-M code, and boards/rb_mps2_an505), through NuttX's
# custom chip and board options (CONFIG_ARCH_CHIP_ARM_CUSTOM,
# CONFIG_ARCH_BOARD_CUSTOM). The NuttX board configuration follows the board
# (RB_BOARD_NUTTX_* in its board.cmake, image.cmake).
set(RB_PORT_CPUS cortex-m3=arch/arm/src/armv7-m cortex-m4=arch/arm/src/armv7-m cortex-m33=arch/arm/src/armv8-m)

# ---- The port: POSIX + the NuttX layer; NuttX builds the image -------------
list(APPEND RB_PORT_SOURCES "${RB_PORT_DIR}/../posix/rbp_posix.c" "${RB_PORT_DIR}/rbp_sys_nuttx.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${RB_PORT_DIR}" "${RB_PORT_DIR}/../posix")
# NuttX sets the clocks (boards/arm/stm32/stm32f4discovery/include/board.h:
# 168 MHz from the 8 MHz crystal, the same tree as the board layer's).
list(APPEND RB_PORT_DEFINITIONS RB_KERNEL_OWNS_CLOCKS=1)
# tick_overhead's copy of NuttX's vector table (in flash) for its raw-vector
# calibration: the STM32F4's SRAM2 (16 KB from 0x2001C000) is outside
# everything NuttX uses here (CONFIG_RAM_SIZE 112 KB, the heap up to
# CONFIG_RAM_END with CONFIG_MM_REGIONS=1), and the image has no 904 bytes
# to spare for an aligned copy of its own. A board that sets
# RB_BOARD_NUTTX_RAM_VECTORS names its own block (512-aligned, above
# CONFIG_RAM_SIZE: image.cmake).
if(DEFINED RB_BOARD_NUTTX_RAM_VECTORS)
  list(APPEND RB_PORT_DEFINITIONS RB_PORT_RAM_VECTORS_AT=${RB_BOARD_NUTTX_RAM_VECTORS}u)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_PORT_RAM_VECTORS_AT=0x2001C000u)
endif()
set(RB_PORT_BUILDS_IMAGE ON)
set(RB_PORT_IMAGE_RECIPE "${RB_PORT_DIR}/image.cmake")

# Interrupt levels. Two NuttX rules shape them:
# - NuttX never takes an interrupt at the lowest NVIC level once it has
#   enabled interrupts: up_irq_enable() sets BASEPRI to NVIC_SYSH_PRIORITY_MIN
#   (0xF0 with 4 priority bits; arch/arm/include/armv7-m/irq.h, and
#   armv8-m/irq.h alike), which masks
#   that level, and every task starts with that BASEPRI (arm_initialstate.c).
# - NuttX's ARMv7-M and ARMv8-M dispatch does not nest: arm_doirq keeps one CURRENT_REGS,
#   and every interrupt that calls the OS runs at one level
#   (NVIC_SYSH_PRIORITY_DEFAULT). A test timer that preempted the tick's
#   handler lost the switch it asked for and stopped the scheduler (seen under
#   QEMU: the busy phase of irq_latency stalled after 747 events).
# So the tick, PendSV and the test timer all sit at 14 of 15 here, one level
# above the other kernels' tick; CONFIG tick_prio/irq_prio show it and the
# matrices pin it for NuttX (docs/kernels.md).
math(EXPR RB_BOARD_TICK_PRIO "(1 << ${RB_BOARD_NVIC_PRIO_BITS}) - 2")
set(RB_BOARD_IRQ_PRIO ${RB_BOARD_TICK_PRIO})


# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "NuttX's tickless mode (CONFIG_SCHED_TICKLESS) wakes on a TIM compare channel (arch/arm/src/stm32/stm32_tickless.c), and QEMU's STM32 timers raise no compare interrupt (boards/qemu-netduinoplus2/rb_board_hw.h)")
