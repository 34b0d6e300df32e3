# Build recipe of the rtthread_nano port: RT-Thread Nano 3.1.5
# (github.com/RT-Thread/rtthread-nano, tag v3.1.5) from the checkout
# RB_KERNEL_SOURCE, never copied here: rt-thread/src/*.c and
# rt-thread/libcpu/arm/cortex-m4 (cpuport.c, context_gcc.S), on a Cortex-M3
# board (RB_CPU) rt-thread/libcpu/arm/cortex-m3 (the same two files), on a
# Cortex-M33 rt-thread/libcpu/arm/cortex-m33 (those two, trustzone.c and
# syscall_gcc.S).
#
#   -DRB_KERNEL_SOURCE=<rtthread-nano checkout at the matrix's tag>   (the directory
#       holding rt-thread/; the rt-thread/ directory itself is accepted too)
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the checkout
# (rtdef.h's RT_VERSION.RT_SUBVERSION.RT_REVISION, git HEAD); left at n/a
# they are read from it.

if(NOT "${RB_KERNEL_SOURCE}" STREQUAL "" AND EXISTS "${RB_KERNEL_SOURCE}/src/scheduler.c"
   AND EXISTS "${RB_KERNEL_SOURCE}/include/rtdef.h")
  get_filename_component(RB_KERNEL_SOURCE "${RB_KERNEL_SOURCE}/.." ABSOLUTE)
endif()
# The cores RT-Thread's libcpu has a port for here (firmware/CMakeLists.txt
# reports any other board's jobs PORT_MISSING); the directory follows RB_CPU.
# On a Cortex-M33 (qemu-mps2-an505: Secure state, no TrustZone, no MPU)
# libcpu/arm/cortex-m33 is built as its SConscript builds it with GCC:
# cpuport.c, context_gcc.S, trustzone.c and syscall_gcc.S. Without
# ARM_CM33_ENABLE_TRUSTZONE trustzone.c's TZ_* calls are empty stubs; no
# thread ever enters a Secure context (rt_trustzone_enter is never called),
# so rt_trustzone_current_context stays 0 and PendSV takes its plain path
# (r4-r11, s16-s31 when EXC_RETURN says the thread used the FPU). The FP
# context follows the float ABI, as on the Cortex-M4 (RB_FPU_CONTEXT:
# hard-float build). No MPU code exists in that port.
set(RB_PORT_CPUS cortex-m3=libcpu/arm/cortex-m3 cortex-m4=libcpu/arm/cortex-m4 cortex-m33=libcpu/arm/cortex-m33)
set(_rb_rt_cpu "${RB_PORT_CPU_PORT}")
if(RB_CPU STREQUAL "cortex-m33")
  list(APPEND RB_PORT_DEFINITIONS RB_RT_CORTEX_M33=1)
endif()
rb_require_kernel_source(
  FILES rt-thread/src/scheduler.c rt-thread/include/rtdef.h rt-thread/${_rb_rt_cpu}/context_gcc.S
        rt-thread/${_rb_rt_cpu}/cpuport.c
  HINT "an rtthread-nano checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")
set(_rb_rt "${RB_KERNEL_SOURCE}/rt-thread")

# ---- Version and commit of the checkout ----------------------------------
set(_rb_rt_ver "")
foreach(part RT_VERSION RT_SUBVERSION RT_REVISION)
  file(STRINGS "${_rb_rt}/include/rtdef.h" _l REGEX "^#define[ \t]+${part}[ \t]+[0-9]+L?")
  string(REGEX REPLACE ".*${part}[ \t]+([0-9]+).*" "\\1" _n "${_l}")
  if(NOT _n MATCHES "^[0-9]+$")
    message(FATAL_ERROR "RB_PORT=rtthread_nano: cannot read ${part} from '${_rb_rt}/include/rtdef.h'")
  endif()
  list(APPEND _rb_rt_ver "${_n}")
endforeach()
list(JOIN _rb_rt_ver "." _rb_rt_ver)
rb_adopt_kernel_version("${_rb_rt_ver}" "'${RB_KERNEL_SOURCE}' is RT-Thread ${_rb_rt_ver} (rt-thread/include/rtdef.h)")
rb_check_kernel_commit("${RB_KERNEL_SOURCE}")

# ---- Sources ----------------------------------------------------------------
file(GLOB _rb_rt_src "${_rb_rt}/src/*.c")
set(_rb_rt_cpu_asm "${_rb_rt}/${_rb_rt_cpu}/context_gcc.S")
list(APPEND RB_KERNEL_SOURCES ${_rb_rt_src} "${_rb_rt}/${_rb_rt_cpu}/cpuport.c")
if(RB_CPU STREQUAL "cortex-m33")
  list(APPEND RB_KERNEL_SOURCES "${_rb_rt}/${_rb_rt_cpu}/trustzone.c")
  list(APPEND _rb_rt_cpu_asm "${_rb_rt}/${_rb_rt_cpu}/syscall_gcc.S")
  # syscall_gcc.S defines SVC_Handler (the dispatcher of trustzone.c's
  # tzcall, SVC 1); nothing here issues an SVC, and renamed it stays unused:
  # the board's default handler keeps the vector, as with HardFault_Handler.
  list(APPEND RB_KERNEL_DEFINITIONS SVC_Handler=rb_rtthread_svc_unused)
  # Nano 3.1.5's cpuport.c gives every new thread EXC_RETURN 0xFFFFFFBC
  # (return to Non-secure state, the Non-secure PSP): a thread of an image
  # running Secure. Here the core runs Secure only, and PendSV's first
  # return with it is an INVPC UsageFault (HardFault, CFSR 0x00040000).
  # Renamed, its rt_hw_stack_init is called by the port's (RB_RT_CORTEX_M33
  # in rb_port_rtthread_nano.c), which changes only that word of the new
  # frame to 0xFFFFFFFD (Secure, PSP, basic frame), as the full RT-Thread's
  # cortex-m33 cpuport.c does with ARCH_ARM_CORTEX_SECURE. Thread creation
  # only: no switch, tick or measured call runs it.
  set_property(SOURCE "${_rb_rt}/${_rb_rt_cpu}/cpuport.c" APPEND PROPERTY
    COMPILE_DEFINITIONS rt_hw_stack_init=rb_rt_nano_stack_init_nonsecure)
endif()
list(APPEND RB_KERNEL_SOURCES ${_rb_rt_cpu_asm})
list(APPEND RB_KERNEL_INCLUDE_DIRS "${_rb_rt}/include")
# context_gcc.S writes conditional FP instructions without IT blocks and
# relies on the assembler adding them: RT-Thread's own build passes
# -Wa,-mimplicit-it=thumb for every assembly file (its BSPs' rtconfig.py).
set_source_files_properties(${_rb_rt_cpu_asm} PROPERTIES
  COMPILE_OPTIONS "-Wa,-mimplicit-it=thumb")
# context_gcc.S defines HardFault_Handler (RT-Thread's fault dump, which
# needs the console this configuration leaves out); renamed, it stays unused
# and the board's fault reporter keeps the vector.
list(APPEND RB_KERNEL_DEFINITIONS HardFault_Handler=rb_rtthread_hardfault_unused)
# RT-Thread always rotates equal-priority ready threads when their tick budget
# runs out; there is no switch to turn that off.
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(NOT RB_TIME_SLICING)
  message(FATAL_ERROR "RB_PORT=rtthread_nano: RB_TIME_SLICING=OFF is not possible: RT-Thread always "
    "time-slices threads of equal priority (each thread has a tick budget)")
endif()
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_rtthread_nano.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "RT-Thread Nano 3.1.5 has no tickless idle (the PM component is the full RT-Thread's)")
