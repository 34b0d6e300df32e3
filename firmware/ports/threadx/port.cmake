# Build recipe of the ThreadX port: ThreadX 6.2.0 (eclipse-threadx/threadx,
# tag v6.2.0_rel) from the checkout RB_KERNEL_SOURCE, never copied here: every
# common/src/*.c (unused services are dropped by --gc-sections) and the
# ports/cortex_m4/gnu assembly files that port's own CMakeLists.txt lists
# (ports/cortex_m3/gnu, the same seven files, on a Cortex-M3 board;
# ports/cortex_m33/gnu on a Cortex-M33: RB_CPU).
#
#   -DRB_KERNEL_SOURCE=<threadx checkout at the matrix's tag>
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the checkout
# (tx_api.h's THREADX_*_VERSION, git HEAD); left at n/a they are read from it.

# The cores ThreadX has a GNU port for here (firmware/CMakeLists.txt reports
# any other board's jobs PORT_MISSING); the port directory follows RB_CPU.
set(RB_PORT_CPUS cortex-m3=ports/cortex_m3/gnu cortex-m4=ports/cortex_m4/gnu cortex-m33=ports/cortex_m33/gnu)
set(_rb_tx_cpu "${RB_PORT_CPU_PORT}")
# The files of the CPU port compiled below: the seven of the ARMv7-M ports'
# CMakeLists.txt.
set(_rb_tx_cpu_asm tx_thread_context_restore tx_thread_context_save tx_thread_interrupt_control
                   tx_thread_schedule tx_thread_stack_build tx_thread_system_return tx_timer_interrupt)
set(_rb_tx_cpu_c "")
if(RB_CPU STREQUAL "cortex-m33")
  # ThreadX' ARMv8-M port, run on the Secure side without TrustZone, where
  # QEMU's AN505 starts the core: TX_SINGLE_MODE_SECURE, the port's switch for
  # ThreadX alone in the Secure state (tx_port.h, tx_thread_stack_build.S:
  # threads return to the Secure PSP, EXC_RETURN 0xFFFFFFFD; no secure-stack
  # context in TX_THREAD, no SVC handler, no secure-stack initialisation; the
  # tx_thread_secure_stack_* calls return TX_FEATURE_NOT_ENABLED). It reaches
  # the kernel's C and assembly and the port file alike (RB_PORT_DEFINITIONS),
  # since it changes TX_THREAD. No MPU (the port has none); PendSV loads
  # PSPLIM with each thread's stack start. The FP context follows the build
  # (RB_FPU_CONTEXT): the port saves s16-s31 under __ARM_FP, as the
  # Cortex-M4 port does. Every file its CMakeLists.txt lists but
  # tx_initialize_low_level.S, the example's start-up (rb_port_threadx.c
  # writes its own, as on the other cores).
  list(APPEND _rb_tx_cpu_asm tx_thread_interrupt_disable tx_thread_interrupt_restore
              tx_thread_secure_stack_allocate tx_thread_secure_stack_free
              tx_thread_secure_stack_initialize)
  set(_rb_tx_cpu_c tx_thread_secure_stack txe_thread_secure_stack_allocate
                   txe_thread_secure_stack_free)
  list(APPEND RB_PORT_DEFINITIONS TX_SINGLE_MODE_SECURE)
endif()

rb_require_kernel_source(
  FILES common/inc/tx_api.h common/src/tx_thread_create.c ${_rb_tx_cpu}/inc/tx_port.h
        ${_rb_tx_cpu}/src/tx_thread_schedule.S
  HINT "a ThreadX checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")

set(_rb_tx "${RB_KERNEL_SOURCE}")

# ---- Version and commit of the checkout ----------------------------------
set(_rb_tx_ver "")
foreach(part MAJOR MINOR PATCH)
  file(STRINGS "${_rb_tx}/common/inc/tx_api.h" _l REGEX "^#define[ \t]+THREADX_${part}_VERSION[ \t]+[0-9]+")
  string(REGEX REPLACE ".*VERSION[ \t]+([0-9]+).*" "\\1" _n "${_l}")
  if(NOT _n MATCHES "^[0-9]+$")
    message(FATAL_ERROR "RB_PORT=threadx: cannot read THREADX_${part}_VERSION from '${_rb_tx}/common/inc/tx_api.h'")
  endif()
  list(APPEND _rb_tx_ver "${_n}")
endforeach()
list(JOIN _rb_tx_ver "." _rb_tx_ver)
rb_adopt_kernel_version("${_rb_tx_ver}" "'${_rb_tx}' is ThreadX ${_rb_tx_ver} (common/inc/tx_api.h)")
rb_check_kernel_commit("${_rb_tx}")

# ---- Sources ----------------------------------------------------------------
file(GLOB _rb_tx_common "${_rb_tx}/common/src/*.c")
list(APPEND RB_KERNEL_SOURCES ${_rb_tx_common})
foreach(f IN LISTS _rb_tx_cpu_asm)
  list(APPEND RB_KERNEL_SOURCES "${_rb_tx}/${_rb_tx_cpu}/src/${f}.S")
endforeach()
foreach(f IN LISTS _rb_tx_cpu_c)
  list(APPEND RB_KERNEL_SOURCES "${_rb_tx}/${_rb_tx_cpu}/src/${f}.c")
endforeach()
list(APPEND RB_KERNEL_INCLUDE_DIRS "${_rb_tx}/common/inc" "${_rb_tx}/${_rb_tx_cpu}/inc")
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_threadx.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")
list(APPEND RB_PORT_DEFINITIONS TX_INCLUDE_USER_DEFINE_FILE)

# Time slicing among equal priorities (CONFIG slicing=, RBP_HAS_TIME_SLICE):
# on with a one-tick quantum in every kernel port, the same condition for all;
# -DRB_TIME_SLICING=OFF builds the no-slicing variant.
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(RB_TIME_SLICING)
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=1)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=0)
endif()

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "ThreadX 6.2's low-power utility (utility/low_power/tx_low_power.c) suppresses ticks only through the application's TX_LOW_POWER_TIMER_SETUP and TX_LOW_POWER_USER_TIMER_ADJUST hooks on a timer that runs in sleep, which this port does not provide")
