# Build recipe of the Zephyr port: Zephyr (3.5.0, the version the matrix pins)
# from the checkout RB_KERNEL_SOURCE, with its modules hal_stm32
# (RB_KERNEL_SOURCE_HAL_STM32) and cmsis (RB_KERNEL_SOURCE_CMSIS) at the
# revisions 3.5.0's west.yml pins; never copied into this repository.
#
# Zephyr is not a library the firmware links: it owns reset, the vector
# table, its init levels, devicetree and Kconfig. So this port builds its own
# image (RB_PORT_BUILDS_IMAGE, docs/porting.md "A kernel that owns start-up"):
# image.cmake configures and builds the out-of-tree Zephyr application app/
# with the same harness sources, the board's board.c, the generated
# rb_build_config.h and the same RB_OPT flags, and hands back
# rtosbench-fw.elf and .map; firmware/CMakeLists.txt makes the usual outputs.
#
#   -DRB_KERNEL_SOURCE=<Zephyr 3.5.0 tree>
#   -DRB_KERNEL_SOURCE_HAL_STM32=<hal_stm32 at 89ef0a33...>
#   -DRB_KERNEL_SOURCE_CMSIS=<cmsis at 5a003314...>
#   -DRB_TIME_SLICING=ON|OFF   CONFIG_TIMESLICING, one-tick quantum (default ON)
#   -DRB_ZEPHYR_JOBS=<n>       parallel jobs of the Zephyr build (default 2)

# Zephyr's CPU port is arch/arm/core/cortex_m for every core here; which
# parts of it are built (ARMv7-M or ARMv8-M Mainline, FPU, Secure) follows
# the Zephyr board's SoC: rb_netduinoplus2 (STM32F405, Cortex-M4F),
# rb_netduino2 (STM32F2 series, CPU_CORTEX_M3: the same ARMv7-M files without
# the FP context code, CONFIG_FPU=n) and rb_mps2_an505 (the MPS2 AN521 CPU0
# SoC, Cortex-M33, built Secure without TrustZone or MPU), app/boards/arm.
# image.cmake checks that the configured Zephyr core is RB_CPU.
set(RB_PORT_CPUS cortex-m3=arch/arm/core/cortex_m cortex-m4=arch/arm/core/cortex_m cortex-m33=arch/arm/core/cortex_m)

set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
set(RB_ZEPHYR_JOBS 2 CACHE STRING "parallel jobs of the nested Zephyr build")
set(RB_KERNEL_SOURCE_HAL_STM32 "" CACHE PATH "Zephyr module hal_stm32 (the revision Zephyr's west.yml pins)")
set(RB_KERNEL_SOURCE_CMSIS "" CACHE PATH "Zephyr module cmsis (the revision Zephyr's west.yml pins)")

set(_rb_zep_hint "a Zephyr 3.5.0 tree with its hal_stm32 and cmsis modules at the revisions configs/qemu.yaml pins (its kernel entry and extra_sources; rtosbench run --fetch-kernels fetches them)")
rb_require_kernel_source(
  FILES VERSION kernel/sem.c kernel/sched.c arch/arm/core/cortex_m/cpu_idle.S
        drivers/timer/cortex_m_systick.c share/zephyr-package/cmake/ZephyrConfig.cmake
  HINT "${_rb_zep_hint}")
foreach(_m HAL_STM32 CMSIS)
  if(NOT IS_DIRECTORY "${RB_KERNEL_SOURCE_${_m}}" OR NOT EXISTS "${RB_KERNEL_SOURCE_${_m}}/zephyr/module.yml")
    message(FATAL_ERROR "RB_PORT=zephyr needs the kernel source: RB_KERNEL_SOURCE_${_m}="
      "'${RB_KERNEL_SOURCE_${_m}}' is not a Zephyr module (no zephyr/module.yml) (${_rb_zep_hint})")
  endif()
endforeach()

# ---- Version and commit of the checkout ----------------------------------
file(STRINGS "${RB_KERNEL_SOURCE}/VERSION" _rb_zep_v REGEX "^(VERSION_MAJOR|VERSION_MINOR|PATCHLEVEL) *=")
set(_rb_zep_ver "")
foreach(_l IN LISTS _rb_zep_v)
  string(REGEX REPLACE "^[A-Z_]+ *= *([0-9]+).*" "\\1" _n "${_l}")
  list(APPEND _rb_zep_ver ${_n})
endforeach()
list(JOIN _rb_zep_ver "." _rb_zep_ver)
if(NOT _rb_zep_ver MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "RB_PORT=zephyr: cannot read the version from '${RB_KERNEL_SOURCE}/VERSION'")
endif()
rb_adopt_kernel_version("${_rb_zep_ver}" "'${RB_KERNEL_SOURCE}' is Zephyr ${_rb_zep_ver} (VERSION)")
rb_check_kernel_commit("${RB_KERNEL_SOURCE}")

# ---- The board: Zephyr's board, and the harness board's interrupt handlers
# the port connects (the test timer with IRQ_CONNECT, the empty interrupt
# directly).
if(NOT RB_BOARD_ZEPHYR_BOARD OR NOT RB_BOARD_ZEPHYR_RAM_VECTORS OR NOT RB_BOARD_ISR_TEST
   OR NOT RB_BOARD_ISR_EMPTY OR NOT RB_BOARD_ISR_ZLI)
  message(FATAL_ERROR "RB_PORT=zephyr: boards/${RB_BOARD}/board.cmake names no Zephyr board "
    "(RB_BOARD_ZEPHYR_BOARD), no RAM for the vector table's copy (RB_BOARD_ZEPHYR_RAM_VECTORS) "
    "or not every handler the port connects (RB_BOARD_ISR_TEST, _EMPTY, _ZLI)")
endif()
set(RB_ZEPHYR_BOARD ${RB_BOARD_ZEPHYR_BOARD})
set(_rb_zep_isrs RB_ZEPHYR_TEST_ISR=${RB_BOARD_ISR_TEST} RB_ZEPHYR_EMPTY_ISR=${RB_BOARD_ISR_EMPTY}
  RB_ZEPHYR_EMPTY_IRQN=${RB_BOARD_IRQN_EMPTY} RB_ZEPHYR_ZLI_ISR=${RB_BOARD_ISR_ZLI}
  RB_ZEPHYR_ZLI_IRQN=${RB_BOARD_IRQN_ZLI})
if(RB_BOARD_ISR_STOP)
  list(APPEND _rb_zep_isrs RB_ZEPHYR_STOP_ISR=${RB_BOARD_ISR_STOP} RB_ZEPHYR_STOP_IRQN=${RB_BOARD_IRQN_STOP})
endif()

list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_zephyr.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")
list(APPEND RB_PORT_DEFINITIONS ${_rb_zep_isrs})
# tick_overhead's copy of Zephyr's vector table (in flash) for its raw-vector
# calibration: 256 bytes of RAM named by the harness board
# (RB_BOARD_ZEPHYR_RAM_VECTORS, 512-byte aligned). The AN505's is 0x3803C000,
# the last 16 KB of the 256 KB the harness board uses, outside the 240 KB
# rb_mps2_an505.dts gives Zephyr (the link fails before the image reaches
# it). The STM32F4's is SRAM2 (0x2001C000), which Zephyr's 128 KB sram0
# includes: with 10000 samples the image's RAM is about 120 KB and the copy
# lands inside the port's K_HEAP_DEFINE buffer (0x20019640-0x2001D640 in a
# -O2 build), in the middle of the one free chunk the heap has before the
# heap test (no chunk header there; the heap writes every header it later
# reads, and the heap test fills its blocks before checking them); a flaw of
# the Cortex-M4 boards, left as is so their images stay unchanged.
if(NOT RB_BOARD_ZEPHYR_RAM_VECTORS MATCHES "^0x[0-9A-Fa-f]*[02468ACEace]00u?$")
  message(FATAL_ERROR "RB_PORT=zephyr: RB_BOARD_ZEPHYR_RAM_VECTORS='${RB_BOARD_ZEPHYR_RAM_VECTORS}' "
    "is not a 512-byte aligned hex address")
endif()
list(APPEND RB_PORT_DEFINITIONS RB_PORT_RAM_VECTORS_AT=${RB_BOARD_ZEPHYR_RAM_VECTORS})
set(RB_PORT_BUILDS_IMAGE ON)
set(RB_PORT_IMAGE_RECIPE "${CMAKE_CURRENT_LIST_DIR}/image.cmake")

# RB_TICKLESS=1: image.cmake sets CONFIG_TICKLESS_KERNEL=y (the SysTick
# driver's tickless mode) and the idle hook lets Zephyr's WFI run.
set(RB_PORT_TICKLESS "CONFIG_TICKLESS_KERNEL")
