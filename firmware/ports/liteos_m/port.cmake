# Build recipe of the liteos_m port: LiteOS-M (github.com/openharmony/
# kernel_liteos_m, tag OpenHarmony_release_v1.1.0) from the checkout
# RB_KERNEL_SOURCE, never copied here: kernel/src (tasks, semaphores, mutexes,
# queues, software timers, events, tick, init), kernel/src/mm/los_memory.c
# (the memory pool every task stack and kernel object comes from), the ARM
# Cortex-M4 GCC arch port (kernel/arch/arm/cortex-m4/gcc: context, PendSV
# switch, vector table and interrupt dispatcher, SysTick), utils (debug hooks,
# error handler) and the few functions of the bundled bounds-checking library
# (components/bounds_checking_function) the kernel calls. On a Cortex-M33
# board the kernel's own Cortex-M33 GCC port (kernel/arch/arm/cortex-m33/gcc)
# replaces the Cortex-M4 one: it has no TrustZone code (no secure context, no
# SG/BXNS), so it runs Secure-only as the board does, with no MPU (los_mpu.c
# is not compiled on either core). The kernel's configuration is
# target_config.h here; the CMSIS-Core headers (core_cm4.h, core_cm33.h) come
# from the checkout's own GCC target (targets/cortex-m7_nucleo_f767zi_gcc).
#
#   -DRB_KERNEL_SOURCE=<kernel_liteos_m checkout at the matrix's tag>
#
# LiteOS-M 1.1 states no version in its sources: the version is read from the
# checkout's tag (OpenHarmony_release_vX.Y.Z); a checkout without that tag
# needs RB_KERNEL_VERSION. RB_KERNEL_COMMIT, when given, must match git HEAD;
# left at n/a it is read from it.

# The cores: the Cortex-M4 and Cortex-M33 ports. A Cortex-M3 board's jobs
# are PORT_MISSING with the reason below (read before any source check):
# LiteOS-M 1.1.0 ships its Cortex-M3 arch port for Keil alone
# (kernel/arch/arm/cortex-m3/keil: armasm syntax, PRESERVE8/EXPORT/EQU), and
# its Cortex-M4 GCC port is not one for the M3 (los_dispatch.S tests CPACR
# and runs vpush/vpop, FP instructions the Cortex-M3 does not have).
set(RB_PORT_CPUS cortex-m4=kernel/arch/arm/cortex-m4/gcc cortex-m33=kernel/arch/arm/cortex-m33/gcc)
set(RB_PORT_NO_CPU_REASON "LiteOS-M 1.1.0 has no GCC port for the Cortex-M3: kernel/arch/arm/cortex-m3 holds keil/ only, armasm sources GNU as cannot assemble")
set(_rb_los_arch_dir "${RB_PORT_CPU_PORT}")
string(REPLACE "cortex-m" "core_cm" _rb_los_core_h "${RB_CPU}.h")
rb_require_kernel_source(
  FILES kernel/src/los_task.c kernel/src/los_init.c kernel/include/los_config.h
        ${_rb_los_arch_dir}/los_dispatch.S ${_rb_los_arch_dir}/los_interrupt.c
        utils/los_compiler.h components/bounds_checking_function/src/memset_s.c
        targets/cortex-m7_nucleo_f767zi_gcc/Drivers/CMSIS/Include/${_rb_los_core_h}
  HINT "a kernel_liteos_m checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")
set(_rb_los "${RB_KERNEL_SOURCE}")

# ---- Version and commit of the checkout ----------------------------------
execute_process(COMMAND git -C "${_rb_los}" describe --tags --exact-match HEAD
  OUTPUT_VARIABLE _rb_los_tag OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rb_los_rc ERROR_QUIET)
if(_rb_los_rc EQUAL 0 AND _rb_los_tag MATCHES "^OpenHarmony_release_v([0-9]+\\.[0-9]+\\.[0-9]+)$")
  rb_adopt_kernel_version("${CMAKE_MATCH_1}" "'${_rb_los}' is LiteOS-M ${CMAKE_MATCH_1} (git tag ${_rb_los_tag})")
elseif(RB_KERNEL_VERSION STREQUAL "n/a")
  message(FATAL_ERROR "RB_PORT=liteos_m: '${_rb_los}' is not at an OpenHarmony_release_vX.Y.Z tag and "
    "LiteOS-M 1.x names no version in its sources: pass -DRB_KERNEL_VERSION=<version>")
endif()
rb_check_kernel_commit("${_rb_los}")

# ---- Options ------------------------------------------------------------------
# Time slicing among equal priorities (CONFIG slicing=, RBP_HAS_TIME_SLICE):
# on with a one-tick quantum in every kernel port, the same condition for all;
# -DRB_TIME_SLICING=OFF builds the no-slicing variant.
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(RB_TIME_SLICING)
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=1)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=0)
endif()

# LiteOS-M 1.1 allocates every task stack from its pool (rbp_stack_unseen):
# the harness keeps no stacks of its own for it (harness/main.c).
list(APPEND RB_PORT_DEFINITIONS RB_PORT_KERNEL_STACKS=1)

# ---- Sources ----------------------------------------------------------------
set(_rb_los_arch "${_rb_los}/${_rb_los_arch_dir}")
set(_rb_los_sec "${_rb_los}/components/bounds_checking_function")
list(APPEND RB_KERNEL_SOURCES
  "${_rb_los}/kernel/src/los_event.c" "${_rb_los}/kernel/src/los_init.c"
  "${_rb_los}/kernel/src/los_mux.c" "${_rb_los}/kernel/src/los_queue.c"
  "${_rb_los}/kernel/src/los_sem.c" "${_rb_los}/kernel/src/los_swtmr.c"
  "${_rb_los}/kernel/src/los_task.c" "${_rb_los}/kernel/src/los_tick.c"
  "${_rb_los}/kernel/src/mm/los_memory.c"
  "${_rb_los_arch}/los_context.c" "${_rb_los_arch}/los_interrupt.c" "${_rb_los_arch}/los_timer.c"
  "${_rb_los_arch}/los_dispatch.S" "${_rb_los_arch}/los_exc.S"
  "${_rb_los}/utils/los_debug.c" "${_rb_los}/utils/los_error.c"
  "${_rb_los_sec}/src/memset_s.c" "${_rb_los_sec}/src/memcpy_s.c" "${_rb_los_sec}/src/strncpy_s.c")
list(APPEND RB_KERNEL_INCLUDE_DIRS
  "${_rb_los}/kernel/include" "${_rb_los}/kernel/arch/include" "${_rb_los_arch}" "${_rb_los}/utils"
  "${_rb_los_sec}/include" "${_rb_los}/targets/cortex-m7_nucleo_f767zi_gcc/Drivers/CMSIS/Include")
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_liteos_m.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")

# The Cortex-M33 port (kernel/arch/arm/cortex-m33/gcc) decides its FP context
# when it is compiled, where the Cortex-M4 one tests CPACR on every switch:
# its C files lay out the task frame by CMSIS' __FPU_USED (core_cm33.h: 1 in
# hard-float builds), its assembly (los_dispatch.S: the first task's frame,
# d8-d15 on every switch; los_exc.S) by __FPU_PRESENT and __FPU_USED, which
# no header defines there: they are given to the two assembly files, in FP
# builds only, so both halves agree (rb_port_liteos_m.c checks the C half
# against RB_FPU_CONTEXT). target_config.h's CMSIS device header
# (boards/common/rb_cmsis_device.h) follows the core.
if(RB_CPU STREQUAL "cortex-m33")
  list(APPEND RB_PORT_DEFINITIONS RB_LOS_CM33=1)
  if(RB_FPU_CONTEXT)
    set_source_files_properties("${_rb_los_arch}/los_dispatch.S" "${_rb_los_arch}/los_exc.S"
      PROPERTIES COMPILE_DEFINITIONS "__FPU_PRESENT=1U;__FPU_USED=1U")
  endif()
endif()

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "LiteOS-M 1.1 declares HalTicklessEnable (kernel/arch/include/los_timer.h) but no source of the release implements it")
