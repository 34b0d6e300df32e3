# Build recipe of the ucos3 port: uC/OS-III 3.08.00 with uC-CPU 1.32.01 and
# uC-LIB 1.39.01 (github.com/weston-embedded, tags v3.08.00, v1.32.01,
# v1.39.01), never copied here. Three checkouts are needed; they are found as
#   1. RB_KERNEL_SOURCE = the uC-OS3 checkout, with RB_KERNEL_SOURCE_UC_CPU and
#      RB_KERNEL_SOURCE_UC_LIB naming the other two (what `rtosbench run`
#      passes for the extra sources named uc_cpu and uc_lib), or
#   2. RB_KERNEL_SOURCE = the uC-OS3 checkout with uC-CPU/ and uC-LIB/ as its
#      siblings (../uC-CPU, ../uC-LIB), or
#   3. RB_KERNEL_SOURCE = a directory holding uC-OS3/, uC-CPU/ and uC-LIB/.
# Compiled: uC-OS3 Source/*.c (os_dbg.c and the __dbg file left out: debug
# tables only), Ports/ARM-Cortex-M/ARMv7-M (os_cpu_c.c, GNU/os_cpu_a.S),
# uC-CPU cpu_core.c + ARM-Cortex-M/ARMv7-M (cpu_c.c, GNU/cpu_a.s) and the
# uC-LIB sources; the configuration headers are this directory's.
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the uC-OS3
# checkout (os.h's OS_VERSION as x.yy.zz, git HEAD); left at n/a they are read
# from it. uC-CPU and uC-LIB must be the versions named above (checked).

set(RB_KERNEL_SOURCE_UC_CPU "" CACHE PATH "uC-CPU checkout (ucos3 port)")
set(RB_KERNEL_SOURCE_UC_LIB "" CACHE PATH "uC-LIB checkout (ucos3 port)")

set(_rb_os_hint "RB_KERNEL_SOURCE=<uC-OS3 checkout> with uC-CPU and uC-LIB as siblings, or "
  "-DRB_KERNEL_SOURCE_UC_CPU=... -DRB_KERNEL_SOURCE_UC_LIB=...; each at the tag configs/qemu.yaml pins "
  "(the kernel entry and its extra_sources; rtosbench run --fetch-kernels fetches them)")
string(CONCAT _rb_os_hint ${_rb_os_hint})
if(NOT "${RB_KERNEL_SOURCE}" STREQUAL "" AND EXISTS "${RB_KERNEL_SOURCE}/uC-OS3/Source/os.h")
  set(_rb_os_bundle "${RB_KERNEL_SOURCE}")
  set(RB_KERNEL_SOURCE "${RB_KERNEL_SOURCE}/uC-OS3")
else()
  get_filename_component(_rb_os_bundle "${RB_KERNEL_SOURCE}/.." ABSOLUTE)
endif()
# The cores uC/OS-III's ARMv7-M port serves (firmware/CMakeLists.txt reports
# any other board's jobs PORT_MISSING): one port for the Cortex-M3 and M4
# alike; its FP save of s16-s31 is compiled only with a hard-float ABI
# (__VFP_FP__ without __SOFTFP__ in os_cpu_a.S and os_cpu.h), so a Cortex-M3
# build and a soft-float Cortex-M4 build run the same switch.
set(RB_PORT_CPUS cortex-m3=Ports/ARM-Cortex-M/ARMv7-M/GNU cortex-m4=Ports/ARM-Cortex-M/ARMv7-M/GNU)
set(RB_PORT_NO_CPU_REASON "uC/OS-III v3.08.00 ships CPU ports for ARMv6-M and ARMv7-M only (Ports/ARM-Cortex-M/ARMv6-M, ARMv7-M; uC-CPU v1.32.01 likewise): none for ARMv8-M")
rb_require_kernel_source(
  FILES Source/os.h Source/os_core.c Ports/ARM-Cortex-M/ARMv7-M/os_cpu_c.c
        Ports/ARM-Cortex-M/ARMv7-M/GNU/os_cpu_a.S
  HINT "${_rb_os_hint}")
set(_rb_os "${RB_KERNEL_SOURCE}")

set(_rb_cpu "${RB_KERNEL_SOURCE_UC_CPU}")
if(_rb_cpu STREQUAL "")
  set(_rb_cpu "${_rb_os_bundle}/uC-CPU")
endif()
set(_rb_lib "${RB_KERNEL_SOURCE_UC_LIB}")
if(_rb_lib STREQUAL "")
  set(_rb_lib "${_rb_os_bundle}/uC-LIB")
endif()
foreach(f cpu_core.c cpu_def.h ARM-Cortex-M/ARMv7-M/cpu_c.c ARM-Cortex-M/ARMv7-M/GNU/cpu_a.s)
  if(NOT EXISTS "${_rb_cpu}/${f}")
    message(FATAL_ERROR "RB_PORT=ucos3 needs uC-CPU: '${_rb_cpu}' has no '${f}' (${_rb_os_hint})")
  endif()
endforeach()
foreach(f lib_def.h lib_mem.c lib_str.c)
  if(NOT EXISTS "${_rb_lib}/${f}")
    message(FATAL_ERROR "RB_PORT=ucos3 needs uC-LIB: '${_rb_lib}' has no '${f}' (${_rb_os_hint})")
  endif()
endforeach()

# ---- Versions and commit -------------------------------------------------------
# A version number N as "x.yy.zz" (N = x*10000 + yy*100 + zz).
function(_rb_os_version file regex out)
  file(STRINGS "${file}" _l REGEX "${regex}")
  string(REGEX REPLACE ".*[ \t]([0-9]+)u.*" "\\1" _n "${_l}")
  if(NOT _n MATCHES "^[0-9]+$")
    message(FATAL_ERROR "RB_PORT=ucos3: cannot read a version from '${file}'")
  endif()
  math(EXPR _maj "${_n} / 10000")
  math(EXPR _min "(${_n} / 100) % 100")
  math(EXPR _pat "${_n} % 100")
  foreach(v _min _pat)
    if(${v} LESS 10)
      set(${v} "0${${v}}")
    endif()
  endforeach()
  set(${out} "${_maj}.${_min}.${_pat}" PARENT_SCOPE)
endfunction()
_rb_os_version("${_rb_os}/Source/os.h" "^#define[ \t]+OS_VERSION[ \t]+[0-9]+u" _rb_os_ver)
_rb_os_version("${_rb_cpu}/cpu_def.h" "^#define[ \t]+CPU_CORE_VERSION[ \t]+[0-9]+u" _rb_cpu_ver)
_rb_os_version("${_rb_lib}/lib_def.h" "^#define[ \t]+LIB_VERSION[ \t]+[0-9]+u" _rb_lib_ver)
if(NOT _rb_cpu_ver STREQUAL "1.32.01" OR NOT _rb_lib_ver STREQUAL "1.39.01")
  message(FATAL_ERROR "RB_PORT=ucos3 is written for uC-CPU 1.32.01 and uC-LIB 1.39.01; "
    "'${_rb_cpu}' is ${_rb_cpu_ver} and '${_rb_lib}' is ${_rb_lib_ver}")
endif()
rb_adopt_kernel_version("${_rb_os_ver}" "'${_rb_os}' is uC/OS-III ${_rb_os_ver} (Source/os.h)")
rb_check_kernel_commit("${_rb_os}")

# ---- Sources ----------------------------------------------------------------------
foreach(f os_cfg_app os_core os_flag os_mem os_msg os_mutex os_prio os_q os_sem os_stat os_task
          os_tick os_time os_tmr os_var)
  list(APPEND RB_KERNEL_SOURCES "${_rb_os}/Source/${f}.c")
endforeach()
list(APPEND RB_KERNEL_SOURCES
  "${_rb_os}/Ports/ARM-Cortex-M/ARMv7-M/os_cpu_c.c"
  "${_rb_os}/Ports/ARM-Cortex-M/ARMv7-M/GNU/os_cpu_a.S"
  "${_rb_cpu}/cpu_core.c"
  "${_rb_cpu}/ARM-Cortex-M/ARMv7-M/cpu_c.c"
  "${_rb_cpu}/ARM-Cortex-M/ARMv7-M/GNU/cpu_a.s"
  "${_rb_lib}/lib_mem.c" "${_rb_lib}/lib_str.c" "${_rb_lib}/lib_math.c" "${_rb_lib}/lib_ascii.c")
list(APPEND RB_KERNEL_INCLUDE_DIRS "${_rb_os}/Source" "${_rb_os}/Ports/ARM-Cortex-M/ARMv7-M/GNU"
  "${_rb_cpu}" "${_rb_cpu}/ARM-Cortex-M/ARMv7-M/GNU" "${_rb_lib}")
# The kernel's exception handlers under the vector table's names. A tickless
# build keeps the kernel's SysTick handler under its own name, unused: its
# OSTimeTick() counts one tick per interrupt, and the dynamic tick's
# interrupt stands for several (rb_port_ucos3.c has that build's handler).
if(RB_TICKLESS)
  list(APPEND RB_KERNEL_DEFINITIONS OS_CPU_PendSVHandler=PendSV_Handler)
else()
  list(APPEND RB_KERNEL_DEFINITIONS OS_CPU_PendSVHandler=PendSV_Handler
    OS_CPU_SysTickHandler=SysTick_Handler)
endif()
# Time slicing among equal priorities (CONFIG slicing=, RBP_HAS_TIME_SLICE):
# on with a one-tick quantum in every kernel port, the same condition for all;
# -DRB_TIME_SLICING=OFF builds the no-slicing variant. A tickless build has
# none whatever it says: uC/OS-III 3.08 compiles no round robin with the
# dynamic tick (os.h refuses OS_CFG_SCHED_ROUND_ROBIN_EN with
# OS_CFG_DYN_TICK_EN), so time_slice is NA there, and yield too: the
# kernel's only yield, OSSchedRoundRobinYield, is round robin's.
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(RB_TIME_SLICING AND NOT RB_TICKLESS)
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=1)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=0)
endif()
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_ucos3.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")


# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1: os_cfg.h sets OS_CFG_DYN_TICK_EN to 1, the kernel's dynamic
# tick. The kernel asks for its next interrupt in whole ticks through
# OS_DynTickSet (0: no timeout pending) and reads the ticks gone by since
# through OS_DynTickGet; rb_port_ucos3.c implements both on SysTick (the
# QEMU board models no compare interrupt on the STM32 timers, and TIM2 to
# TIM5 are the harness'), reloaded for up to the 99 whole ticks 24 bits hold
# at 1000 Hz, and its own SysTick handler hands the ticks of the period to
# OSTimeDynTick. The idle hook sleeps in WFI after rb_idle_hook(). Round
# robin is compiled out (the kernel refuses it with the dynamic tick): no
# time slicing, no yield.
set(RB_PORT_TICKLESS "OS_CFG_DYN_TICK_EN")
