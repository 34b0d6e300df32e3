# Build recipe of the FreeRTOS port: FreeRTOS-Kernel (the version the matrix pins) from the checkout
# RB_KERNEL_SOURCE (never copied into this repository), its GCC/ARM_CM4F CPU
# port (GCC/ARM_CM3 on a Cortex-M3 board, GCC/ARM_CM33_NTZ on a Cortex-M33)
# and heap_4, compiled with the
# harness' flags (firmware/CMakeLists.txt adds the sources to the rb_kernel
# object library).
#
#   -DRB_KERNEL_SOURCE=<FreeRTOS-Kernel checkout at the matrix's tag>
#   -DRB_TIME_SLICING=ON|OFF   configUSE_TIME_SLICING (default ON)
#   -DRB_FREERTOS_CPU_PORT=ARM_CM4F|ARM_CM3|ARM_CM33_NTZ
#       the GCC CPU port. Its default follows the board's core (RB_CPU, from
#       its -mcpu=): on a Cortex-M4 ARM_CM4F, the Cortex-M4F port, in FP and
#       soft-float builds alike (seed 000: "the official Cortex-M4F port");
#       on a Cortex-M3 ARM_CM3, FreeRTOS' port for that core; on a
#       Cortex-M33 ARM_CM33_NTZ (its non_secure/ port, run Secure-only),
#       the only choice there. ARM_CM3 on a
#       Cortex-M4 (soft-float builds only) is FreeRTOS' choice for a
#       Cortex-M4 without FP use: its switch has no EXC_RETURN FP test, like
#       the other kernels' ports in soft-float builds. CONFIG port= stays
#       freertos, port_variant= names the CPU port; the choice is recorded in
#       docs/kernels.md and must be stated with results.
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the checkout
# (task.h's tskKERNEL_VERSION_NUMBER, git HEAD); when left at n/a they are
# read from it, so CONFIG always names what was compiled.

# Time slicing among equal priorities (CONFIG slicing=, RBP_HAS_TIME_SLICE):
# on with a one-tick quantum in every kernel port, the same condition for all;
# -DRB_TIME_SLICING=OFF builds the no-slicing variant.
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(RB_TIME_SLICING)
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=1)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=0)
endif()
# The cores this recipe has a FreeRTOS CPU port for (firmware/CMakeLists.txt
# reports any other board's jobs PORT_MISSING).
set(RB_PORT_CPUS cortex-m3=GCC/ARM_CM3 cortex-m4=GCC/ARM_CM4F cortex-m33=GCC/ARM_CM33_NTZ)
string(REPLACE "GCC/" "" _rb_frt_cpu_default "${RB_PORT_CPU_PORT}")
set(RB_FREERTOS_CPU_PORT "${_rb_frt_cpu_default}" CACHE STRING
  "FreeRTOS GCC CPU port: ARM_CM4F, ARM_CM3 or ARM_CM33_NTZ (default: the board's core's)")
set_property(CACHE RB_FREERTOS_CPU_PORT PROPERTY STRINGS ARM_CM4F ARM_CM3 ARM_CM33_NTZ)
if(NOT RB_FREERTOS_CPU_PORT MATCHES "^(ARM_CM4F|ARM_CM3|ARM_CM33_NTZ)$")
  message(FATAL_ERROR "RB_FREERTOS_CPU_PORT='${RB_FREERTOS_CPU_PORT}': allowed values are ARM_CM4F, ARM_CM3 and ARM_CM33_NTZ")
endif()
if(RB_FREERTOS_CPU_PORT STREQUAL "ARM_CM4F" AND NOT RB_CPU STREQUAL "cortex-m4")
  message(FATAL_ERROR "RB_FREERTOS_CPU_PORT=ARM_CM4F needs a Cortex-M4F; board ${RB_BOARD} has a ${RB_CPU}")
endif()
if(RB_FREERTOS_CPU_PORT STREQUAL "ARM_CM3" AND RB_FPU_CONTEXT)
  message(FATAL_ERROR "RB_FREERTOS_CPU_PORT=ARM_CM3 cannot save FP context: use ARM_CM4F with RB_FPU_CONTEXT=1")
endif()
if((RB_FREERTOS_CPU_PORT STREQUAL "ARM_CM33_NTZ" AND NOT RB_CPU STREQUAL "cortex-m33")
   OR (RB_CPU STREQUAL "cortex-m33" AND NOT RB_FREERTOS_CPU_PORT STREQUAL "ARM_CM33_NTZ"))
  message(FATAL_ERROR "RB_FREERTOS_CPU_PORT=ARM_CM33_NTZ is the port for a Cortex-M33 and the only one here; "
    "board ${RB_BOARD} has a ${RB_CPU}, RB_FREERTOS_CPU_PORT=${RB_FREERTOS_CPU_PORT}")
endif()
set(_rb_frt_cpu "portable/GCC/${RB_FREERTOS_CPU_PORT}")
set(_rb_frt_cpu_sources "${_rb_frt_cpu}/port.c")
if(RB_FREERTOS_CPU_PORT STREQUAL "ARM_CM33_NTZ")
  # FreeRTOS' ARMv8-M port without TrustZone (its non_secure/ directory),
  # run on the Secure side, where QEMU's AN505 starts the core: the
  # combination its port.c names for that (configRUN_FREERTOS_SECURE_ONLY=1,
  # configENABLE_TRUSTZONE=0; tasks then return to the Secure PSP). No MPU;
  # the FPU context follows RB_FPU_CONTEXT. FreeRTOSConfig.h sets none of
  # these, the ARMv7-M ports read none (RB_PORT_DEFINITIONS reach the kernel
  # and the harness alike).
  set(_rb_frt_cpu "portable/GCC/ARM_CM33_NTZ/non_secure")
  set(_rb_frt_cpu_sources "${_rb_frt_cpu}/port.c" "${_rb_frt_cpu}/portasm.c")
  # Its portmacro.h has no CLZ ready-task lookup: the kernel's generic one
  # (FreeRTOSConfig.h, CONFIG lookup=generic).
  list(APPEND RB_PORT_DEFINITIONS configRUN_FREERTOS_SECURE_ONLY=1 configENABLE_TRUSTZONE=0
    configENABLE_MPU=0 configENABLE_FPU=${RB_FPU_CONTEXT} RB_FRT_GENERIC_LOOKUP=1)
endif()

rb_require_kernel_source(
  FILES tasks.c queue.c list.c timers.c include/task.h ${_rb_frt_cpu_sources}
        portable/MemMang/heap_4.c
  HINT "a FreeRTOS-Kernel checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")

# ---- Version and commit of the checkout ----------------------------------
file(STRINGS "${RB_KERNEL_SOURCE}/include/task.h" _rb_frt_ver
  REGEX "^#define[ \t]+tskKERNEL_VERSION_NUMBER[ \t]+\"V?[0-9.]+\"")
string(REGEX REPLACE ".*\"V?([0-9.]+)\".*" "\\1" _rb_frt_ver "${_rb_frt_ver}")
if(NOT _rb_frt_ver MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "RB_PORT=freertos: cannot read tskKERNEL_VERSION_NUMBER from "
    "'${RB_KERNEL_SOURCE}/include/task.h'")
endif()
rb_adopt_kernel_version("${_rb_frt_ver}" "'${RB_KERNEL_SOURCE}' is FreeRTOS ${_rb_frt_ver} (include/task.h)")
rb_check_kernel_commit("${RB_KERNEL_SOURCE}")

# ---- Sources ----------------------------------------------------------------
set(_rb_frt "${RB_KERNEL_SOURCE}")
list(APPEND RB_KERNEL_SOURCES
  "${_rb_frt}/tasks.c" "${_rb_frt}/queue.c" "${_rb_frt}/list.c" "${_rb_frt}/timers.c"
  "${_rb_frt}/portable/MemMang/heap_4.c")
foreach(_f IN LISTS _rb_frt_cpu_sources)
  list(APPEND RB_KERNEL_SOURCES "${_rb_frt}/${_f}")
endforeach()
list(APPEND RB_KERNEL_INCLUDE_DIRS "${_rb_frt}/include" "${_rb_frt}/${_rb_frt_cpu}")
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_freertos.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")

# ARM_CM4F's context switch saves s16-s31 when a task's exception frame is an
# FP frame, in inline assembly the assembler accepts only with an FPU
# selected. In soft-float builds (RB_FPU_CONTEXT=0) port.c alone is compiled
# for the softfp ABI: the same calling convention as soft, no floating-point
# code in the file, the FP path is never taken (no task ever sets
# CONTROL.FPCA). The port thus stays exactly as upstream ships it.
if(NOT RB_FPU_CONTEXT AND RB_FREERTOS_CPU_PORT STREQUAL "ARM_CM4F")
  set_source_files_properties("${_rb_frt}/portable/GCC/ARM_CM4F/port.c" PROPERTIES
    COMPILE_OPTIONS "-mfloat-abi=softfp;-mfpu=fpv4-sp-d16")
endif()

# CONFIG port_variant=: the kernel CPU port compiled above (GCC/ARM_CM33_NTZ
# for its non_secure/ directory): RB_PORT_CPUS' unless RB_FREERTOS_CPU_PORT
# names another.
set(RB_PORT_VARIANT "GCC/${RB_FREERTOS_CPU_PORT}")

# RB_TICKLESS=1: FreeRTOSConfig.h sets configUSE_TICKLESS_IDLE to 1, the
# port's own vPortSuppressTicksAndSleep (SysTick stopped, WFI, the tick count
# stepped on the way out) after 2 expected idle ticks, the kernel default.
set(RB_PORT_TICKLESS "configUSE_TICKLESS_IDLE")

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})
