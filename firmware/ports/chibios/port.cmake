# Build recipe of the chibios port: ChibiOS/RT 21.6.0 (github.com/ChibiOS/ChibiOS,
# tag ver21.6.0; the RT kernel 7.0.0) from the checkout RB_KERNEL_SOURCE, never
# copied here: os/rt/src/*.c, OSLIB's mailboxes (os/oslib/src/chmboxes.c), the
# ARMv7-M port (os/common/ports/ARMv7-M: chcore.c, compilers/GCC/chcoreasm.S;
# on a Cortex-M33 the ARMv8-M Mainline port os/common/ports/ARMv8-M-ML, the
# same two files) with its headers (ARM-common/chtypes.h, portability/GCC/ccportab.h, the
# license headers of os/license) and ChibiOS' copy of the CMSIS core headers
# (os/common/ext/ARM/CMSIS/Core/Include). No ChibiOS/HAL and no ChibiOS
# startup: the boards own the vectors, clocks, UART and timers; cmparams.h
# here stands for the device file of ChibiOS' startup.
#
#   -DRB_KERNEL_SOURCE=<ChibiOS checkout at the matrix's tag>  (os/ is enough:
#       a sparse checkout of os/rt, os/oslib, os/license, os/common/ports/ARMv7-M
#       (ARMv8-M-ML for a Cortex-M33),
#       os/common/ports/ARM-common, os/common/portability/GCC,
#       os/common/ext/ARM/CMSIS/Core/Include)
#   -DRB_TIME_SLICING=ON|OFF   CH_CFG_TIME_QUANTUM 1 or 0 (default ON)
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the checkout
# (os/license/chversion.h's CH_VERSION, git HEAD); left at n/a they are read
# from it.
#
# License: ChibiOS/RT is GPL 3 (os/license/chcustomer.h as shipped:
# CH_LICENSE_GPL, every feature licensed); the firmware image links it.

# The cores ChibiOS' ARMv7-M port serves here (firmware/CMakeLists.txt reports
# any other board's jobs PORT_MISSING): one port for both, told the core by
# cmparams.h's CORTEX_MODEL and CORTEX_HAS_FPU; on a Cortex-M3 the recipe
# defines RB_CH_CORTEX_M3 for it (model 3, no FPU: CORTEX_USE_FPU stays FALSE,
# as in every soft-float Cortex-M4 build).
#
# On a Cortex-M33 (qemu-mps2-an505) ChibiOS' ARMv8-M Mainline port instead,
# os/common/ports/ARMv8-M-ML, not its TrustZone sibling ARMv8-M-ML-TZ: the
# firmware runs Secure-only (QEMU starts the core Secure, SAU off), no MPU
# (the port programs none), stack checking off as on ARMv7-M (chconf.h: no
# PSPLIM). The recipe defines RB_CH_CORTEX_M33 for cmparams.h (model 33, its
# FPU; CORTEX_USE_FPU follows RB_FPU_CONTEXT as on a Cortex-M4) and the
# CMSIS core header is core_cm33.h (boards/common/rb_cmsis_device.h).
set(RB_PORT_CPUS cortex-m3=os/common/ports/ARMv7-M cortex-m4=os/common/ports/ARMv7-M cortex-m33=os/common/ports/ARMv8-M-ML)
string(REPLACE "os/common/ports/" "" _rb_ch_cpu "${RB_PORT_CPU_PORT}")
set(_rb_ch_cmsis_core core_cm4.h)
if(RB_CPU STREQUAL "cortex-m3")
  list(APPEND RB_PORT_DEFINITIONS RB_CH_CORTEX_M3=1)
elseif(RB_CPU STREQUAL "cortex-m33")
  set(_rb_ch_cmsis_core core_cm33.h)
  list(APPEND RB_PORT_DEFINITIONS RB_CH_CORTEX_M33=1)
endif()

rb_require_kernel_source(
  FILES os/rt/include/ch.h os/rt/src/chschd.c os/oslib/src/chmboxes.c os/license/chversion.h
        os/common/ports/${_rb_ch_cpu}/chcore.c os/common/ports/${_rb_ch_cpu}/compilers/GCC/chcoreasm.S
        os/common/ports/ARM-common/chtypes.h os/common/portability/GCC/ccportab.h
        os/common/ext/ARM/CMSIS/Core/Include/${_rb_ch_cmsis_core}
  HINT "a ChibiOS checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")
set(_rb_ch "${RB_KERNEL_SOURCE}/os")

# ---- Version and commit of the checkout ----------------------------------
file(STRINGS "${_rb_ch}/license/chversion.h" _rb_ch_ver REGEX "^#define[ \t]+CH_VERSION[ \t]+\"[0-9.]+\"")
string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" _rb_ch_ver "${_rb_ch_ver}")
if(NOT _rb_ch_ver MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "RB_PORT=chibios: cannot read CH_VERSION from '${_rb_ch}/license/chversion.h'")
endif()
rb_adopt_kernel_version("${_rb_ch_ver}" "'${RB_KERNEL_SOURCE}' is ChibiOS ${_rb_ch_ver} (os/license/chversion.h)")
rb_check_kernel_commit("${RB_KERNEL_SOURCE}")

# ChibiOS 21.6.0's ARMv8-M-ML does not compile with CORTEX_USE_FPU TRUE: its
# chcore.h initialises a thread's FPSCR through PORT_SETUP_CONTEXT_FPU as
# (tp)->ctx.sp->fpscr, but ctx.sp is a struct port_intctx, which has no
# fpscr (only struct port_extctx has one); ChibiOS' own ARMv8-M-ML demo
# (RT-STM32L552ZE-NUCLEO144) builds with USE_FPU = no. A kernel defect, not
# patched here: with the defect in the checkout an FP build (RB_FPU_CONTEXT=1)
# on a Cortex-M33 is not built, with this reason. Read from the checkout, so
# a release without the defect builds.
if(RB_CPU STREQUAL "cortex-m33" AND RB_FPU_CONTEXT)
  file(READ "${_rb_ch}/common/ports/ARMv8-M-ML/chcore.h" _rb_ch_v8)
  string(REGEX MATCH "struct port_intctx {[^}]*}" _rb_ch_v8_intctx "${_rb_ch_v8}")
  if(_rb_ch_v8 MATCHES "ctx\\.sp->fpscr" AND NOT _rb_ch_v8_intctx MATCHES "fpscr")
    rb_variant_not_built("RB_FPU_CONTEXT=1 on a Cortex-M33: ChibiOS ${_rb_ch_ver} os/common/ports/ARMv8-M-ML/"
      "chcore.h does not compile with CORTEX_USE_FPU TRUE (PORT_SETUP_CONTEXT_FPU sets ctx.sp->fpscr, "
      "a member struct port_intctx lacks: a kernel defect, docs/kernels.md)")
  endif()
endif()

# Time slicing among equal priorities (CONFIG slicing=, RBP_HAS_TIME_SLICE):
# on with a one-tick quantum in every kernel port; OFF builds the variant
# without it (CH_CFG_TIME_QUANTUM 0).
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(RB_TIME_SLICING)
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=1)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=0)
endif()

# ---- Sources ----------------------------------------------------------------
# The RT kernel's files (os/rt/rt.mk lists the same; what chconf.h turns off
# compiles to nothing), OSLIB's mailboxes and its core allocator and heap (the
# heap test); chlib.h also needs the other
# OSLIB headers, whose sources stay out (all off in chconf.h).
file(GLOB _rb_ch_rt "${_rb_ch}/rt/src/*.c")
list(APPEND RB_KERNEL_SOURCES ${_rb_ch_rt} "${_rb_ch}/oslib/src/chmboxes.c"
  "${_rb_ch}/oslib/src/chmemcore.c" "${_rb_ch}/oslib/src/chmemheaps.c"
  "${_rb_ch}/common/ports/${_rb_ch_cpu}/chcore.c" "${_rb_ch}/common/ports/${_rb_ch_cpu}/compilers/GCC/chcoreasm.S")
set(RB_CH_INCLUDE_DIRS "${_rb_ch}/license" "${_rb_ch}/rt/include" "${_rb_ch}/oslib/include"
  "${_rb_ch}/common/ports/${_rb_ch_cpu}" "${_rb_ch}/common/ports/ARM-common" "${_rb_ch}/common/portability/GCC"
  "${_rb_ch}/common/ext/ARM/CMSIS/Core/Include")
list(APPEND RB_KERNEL_INCLUDE_DIRS ${RB_CH_INCLUDE_DIRS})
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_chibios.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "ChibiOS' tickless mode (CH_CFG_ST_TIMEDELTA > 0) keeps system time on a free-running timer with a compare channel (the HAL ST driver); this port builds no HAL, and QEMU's STM32 timers raise no compare interrupt (boards/qemu-netduinoplus2/rb_board_hw.h)")
