# Build recipe of the mbedos port: Mbed OS 6.17.0's RTOS layer (rtos:: C++
# classes over CMSIS-RTOS2 and RTX5) from the checkout RB_KERNEL_SOURCE, never
# copied here, compiled by this recipe without Mbed's tools (mbed-tools,
# mbed_config.h generation, Mbed's CMake): mbed_config.h, cmsis.h and
# mbed_rtx.h in this directory stand for what Mbed's tools and target would
# provide.
#
#   -DRB_KERNEL_SOURCE=<mbed-os checkout at the matrix's commit>
#       (the folders used: rtos/, cmsis/CMSIS_5/CMSIS/{RTOS2,TARGET_CORTEX_M},
#       cmsis/device/{rtos,RTE}, platform/, hal/)
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the checkout
# (platform/include/platform/mbed_version.h's MBED_MAJOR/MINOR/PATCH_VERSION,
# git HEAD); left at n/a they are read from it.
#
# The port and the rtos:: classes are C++: this recipe enables CXX for the
# firmware (C++17, -fno-exceptions -fno-rtti, no thread-safe statics, no
# atexit registration; no heap: the port defines the allocation operators the
# classes refer to and never allocates).

set(_rb_mb_rtx "cmsis/CMSIS_5/CMSIS/RTOS2/RTX")

# The CPU port: RTX's GCC exception handlers (SVC, PendSV, SysTick and the
# context switch) for the board's core (RB_CPU, from its -mcpu=), the files
# Mbed's build picks by the target's core (TARGET_M3, TARGET_RTOS_M4_M7,
# TARGET_M33), with the CMSIS core header cmsis.h includes for that core:
#   cortex-m3   TARGET_M3/irq_cm3.S (ARMv7-M, no FPU), core_cm3.h
#   cortex-m4   TARGET_RTOS_M4_M7/irq_cm4f.S (FP frames per EXC_RETURN when
#               built hard-float), core_cm4.h
#   cortex-m33  TARGET_M33/irq_armv8mml.S (ARMv8-M Mainline: PSPLIM set to the
#               thread's stack base on every switch; FP frames per EXC_RETURN
#               when built hard-float, RB_FPU_CONTEXT=1), core_cm33.h. Run
#               Secure-only, where QEMU's AN505 starts the core: RTX's
#               DOMAIN_NS stays 0 (its default, rtx_core_cm.h: no TrustZone
#               context calls, threads start with EXC_RETURN 0xFFFFFFFD, the
#               Secure PSP), no MPU (OS_PRIVILEGE_MODE 1, no zones).
set(RB_PORT_CPUS "cortex-m3=RTX TARGET_M3/irq_cm3" "cortex-m4=RTX TARGET_RTOS_M4_M7/irq_cm4f" "cortex-m33=RTX TARGET_M33/irq_armv8mml")
string(REGEX REPLACE "^RTX (.*)$" "\\1.S" _rb_mb_irq_rel "${RB_PORT_CPU_PORT}")
string(REPLACE "cortex-m" "core_cm" _rb_mb_core_h "${RB_CPU}.h")
rb_require_kernel_source(
  FILES platform/include/platform/mbed_version.h rtos/source/Thread.cpp rtos/include/rtos/Thread.h
        ${_rb_mb_rtx}/Source/rtx_thread.c ${_rb_mb_rtx}/Config/RTX_Config.c
        ${_rb_mb_rtx}/Source/TOOLCHAIN_GCC/${_rb_mb_irq_rel}
        cmsis/CMSIS_5/CMSIS/RTOS2/Source/os_systick.c cmsis/device/RTE/include/RTE_Components.h
        cmsis/device/rtos/include/mbed_rtx_conf.h cmsis/CMSIS_5/CMSIS/TARGET_CORTEX_M/Include/${_rb_mb_core_h}
        platform/source/mbed_critical.c hal/source/mbed_critical_section_api.c
  HINT "an mbed-os checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")
set(_rb_mb "${RB_KERNEL_SOURCE}")

# ---- Version and commit of the checkout ----------------------------------
set(_rb_mb_ver "")
foreach(part MBED_MAJOR_VERSION MBED_MINOR_VERSION MBED_PATCH_VERSION)
  file(STRINGS "${_rb_mb}/platform/include/platform/mbed_version.h" _l REGEX "^#define[ \t]+${part}[ \t]+[0-9]+")
  string(REGEX REPLACE ".*${part}[ \t]+([0-9]+).*" "\\1" _n "${_l}")
  if(NOT _n MATCHES "^[0-9]+$")
    message(FATAL_ERROR "RB_PORT=mbedos: cannot read ${part} from '${_rb_mb}/platform/include/platform/mbed_version.h'")
  endif()
  list(APPEND _rb_mb_ver "${_n}")
endforeach()
list(JOIN _rb_mb_ver "." _rb_mb_ver)
rb_adopt_kernel_version("${_rb_mb_ver}" "'${RB_KERNEL_SOURCE}' is Mbed OS ${_rb_mb_ver} (platform/include/platform/mbed_version.h)")
rb_check_kernel_commit("${RB_KERNEL_SOURCE}")

# Mbed OS runs RTX at 1000 Hz only: mbed_rtx_conf.h stops the build for any
# other OS_TICK_FREQ (Kernel::Clock counts milliseconds as ticks).
if(NOT RB_TICK_HZ EQUAL 1000)
  rb_variant_not_built("RB_PORT=mbedos: RB_TICK_HZ=${RB_TICK_HZ} is not possible: Mbed OS fixes RTX's tick "
    "at 1000 Hz (cmsis/device/rtos/include/mbed_rtx_conf.h: \"OS Tickrate must be 1000 for system timing\")")
endif()

# RTX always rotates equal-priority threads here (OS_ROBIN_ENABLE 1 in
# mbed_config.h, one-tick quantum); the no-slicing variant is not built.
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(NOT RB_TIME_SLICING)
  message(FATAL_ERROR "RB_PORT=mbedos: RB_TIME_SLICING=OFF is not provided: the port's mbed_config.h "
    "sets RTX's OS_ROBIN_ENABLE 1")
endif()

# ---- C++ --------------------------------------------------------------------
enable_language(CXX)
foreach(cfg "" _DEBUG _RELEASE _RELWITHDEBINFO _MINSIZEREL)
  set(CMAKE_CXX_FLAGS${cfg} "")
endforeach()
set(_rb_mb_cxx_flags -std=gnu++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics
    -fno-use-cxa-atexit)

# ---- Sources ----------------------------------------------------------------
set(_rb_mb_c_sources "")
foreach(f rtx_delay rtx_evflags rtx_evr rtx_kernel rtx_lib rtx_memory rtx_mempool rtx_msgqueue rtx_mutex
          rtx_semaphore rtx_system rtx_thread rtx_timer)
  list(APPEND _rb_mb_c_sources "${_rb_mb}/${_rb_mb_rtx}/Source/${f}.c")
endforeach()
list(APPEND _rb_mb_c_sources "${_rb_mb}/${_rb_mb_rtx}/Config/RTX_Config.c"
  "${_rb_mb}/cmsis/CMSIS_5/CMSIS/RTOS2/Source/os_systick.c"
  "${_rb_mb}/platform/source/mbed_critical.c" "${_rb_mb}/hal/source/mbed_critical_section_api.c")
set(_rb_mb_cxx_sources "")
foreach(f Thread Mutex Semaphore ThisThread Kernel)
  list(APPEND _rb_mb_cxx_sources "${_rb_mb}/rtos/source/${f}.cpp")
endforeach()
set(_rb_mb_irq "${_rb_mb}/${_rb_mb_rtx}/Source/TOOLCHAIN_GCC/${_rb_mb_irq_rel}")
list(APPEND RB_KERNEL_SOURCES ${_rb_mb_c_sources} ${_rb_mb_cxx_sources} "${_rb_mb_irq}")

set(_rb_mb_includes
  "${_rb_mb}/rtos/include" "${_rb_mb}/rtos/include/rtos" "${_rb_mb}/rtos/source"
  "${_rb_mb}/platform/include" "${_rb_mb}/platform/include/platform" "${_rb_mb}/platform/cxxsupport" "${_rb_mb}/hal/include" "${_rb_mb}/drivers/include"
  "${_rb_mb}/cmsis/CMSIS_5/CMSIS/RTOS2/Include" "${_rb_mb}/${_rb_mb_rtx}/Include"
  "${_rb_mb}/${_rb_mb_rtx}/Include1" "${_rb_mb}/${_rb_mb_rtx}/Config" "${_rb_mb}/${_rb_mb_rtx}/Source"
  "${_rb_mb}/cmsis/CMSIS_5/CMSIS/TARGET_CORTEX_M/Include" "${_rb_mb}/cmsis/device/rtos/include"
  "${_rb_mb}/cmsis/device/RTE/include" "${_rb_mb}/cmsis/device")
list(APPEND RB_KERNEL_INCLUDE_DIRS ${_rb_mb_includes})
# _RTE_: Mbed's way into RTX_Config.h (RTE_Components.h -> mbed_rtx_conf.h,
# rtos/mbed_lib.json "macros").
list(APPEND RB_PORT_DEFINITIONS _RTE_)
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_mbedos.cpp")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")

# mbed_config.h reaches every Mbed C/C++ file and the port as Mbed's build
# passes it (-include). C++ files get the C++ flags.
set(_rb_mb_include_cfg "-include;${CMAKE_CURRENT_LIST_DIR}/mbed_config.h")
set_source_files_properties(${_rb_mb_c_sources} PROPERTIES COMPILE_OPTIONS "${_rb_mb_include_cfg}")
set_source_files_properties(${_rb_mb_cxx_sources}
  PROPERTIES COMPILE_OPTIONS "${_rb_mb_include_cfg};${_rb_mb_cxx_flags}")
# The port sees Mbed's headers as system headers (-isystem wins over the -I of
# the same directory): their own warnings, e.g. Queue.h's partial aggregate
# initializer, are Mbed's, not the port's (-Wall -Wextra stay on for the port).
set(_rb_mb_isystem "")
foreach(dir IN LISTS _rb_mb_includes)
  list(APPEND _rb_mb_isystem "-isystem" "${dir}")
endforeach()
set_source_files_properties("${CMAKE_CURRENT_LIST_DIR}/rb_port_mbedos.cpp"
  PROPERTIES COMPILE_OPTIONS "${_rb_mb_include_cfg};${_rb_mb_cxx_flags};${_rb_mb_isystem}")
# The CPU port's irq_*.S (RTX's SVC, PendSV and SysTick handlers, above): its
# SysTick_Handler calls the port's wrapper (tick hook, then
# osRtxTick_Handler) instead of osRtxTick_Handler. Mbed's copies of the
# three leave RTX_Config.h out ("Mbed OS patch"), so
# RTX's stack check in its context switch (RTX_STACK_CHECK, which rtx_def.h
# derives from OS_STACK_CHECK for the C files) is passed here, with RB_CHECKS=on.
set(_rb_mb_irq_defs "osRtxTick_Handler=rb_mbedos_tick_handler")
if(RB_CHECKS STREQUAL "on")
  list(APPEND _rb_mb_irq_defs RTX_STACK_CHECK)
endif()
set_source_files_properties("${_rb_mb_irq}" PROPERTIES COMPILE_DEFINITIONS "${_rb_mb_irq_defs}")

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1: RTX5's own tickless API in the port's idle thread
# (rb_port_mbedos.cpp, RB_CFG_TICKLESS): osKernelSuspend stops SysTick and
# returns the ticks to the next timeout; the port reloads SysTick for them
# (at most what its 24 bits hold), sleeps in WFI, restarts SysTick in the
# tick's phase with the periodic reload and calls osKernelResume with the
# whole ticks slept. Mbed's own MBED_TICKLESS (mbed_rtx_idle.cpp and
# SysTimer) is not built: it needs the target's lp_ticker or us_ticker HAL
# driver, a timer with a compare interrupt (TIM5 CC1 on the STM32F4), and
# uses SysTick only as a software-pended tick interrupt.
set(RB_PORT_TICKLESS "osKernelSuspend/osKernelResume")
