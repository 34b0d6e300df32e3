# Build recipe of the rtthread_nano port: RT-Thread Nano 3.1.5
# (github.com/RT-Thread/rtthread-nano, tag v3.1.5) from the checkout
# RB_KERNEL_SOURCE, never copied here: rt-thread/src/*.c and
# rt-thread/libcpu/arm/cortex-m4 (cpuport.c, context_gcc.S), on a Cortex-M3
# board (RB_CPU) rt-thread/libcpu/arm/cortex-m3 (the same two files).
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
set(RB_PORT_CPUS cortex-m3 cortex-m4)
if(RB_CPU STREQUAL "cortex-m3")
  set(_rb_rt_cpu libcpu/arm/cortex-m3)
else()
  set(_rb_rt_cpu libcpu/arm/cortex-m4)
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
list(APPEND RB_KERNEL_SOURCES ${_rb_rt_src}
  "${_rb_rt}/${_rb_rt_cpu}/cpuport.c" "${_rb_rt}/${_rb_rt_cpu}/context_gcc.S")
list(APPEND RB_KERNEL_INCLUDE_DIRS "${_rb_rt}/include")
# context_gcc.S writes conditional FP instructions without IT blocks and
# relies on the assembler adding them: RT-Thread's own build passes
# -Wa,-mimplicit-it=thumb for every assembly file (its BSPs' rtconfig.py).
set_source_files_properties("${_rb_rt}/${_rb_rt_cpu}/context_gcc.S" PROPERTIES
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

# CONFIG port_variant=: the kernel CPU port compiled above.
set(RB_PORT_VARIANT "${_rb_rt_cpu}")

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "RT-Thread Nano 3.1.5 has no tickless idle (the PM component is the full RT-Thread's)")
